// The one place the model is chosen: the three tier names a client may ask for, mapped to
// current Gemini ids from configuration, or the offline model when no key is set. Tests inject
// a mock model through `ChatModel` instead of calling `selectChatModel`.
import { createGoogle } from "@ai-sdk/google";
import type { LanguageModelV4 } from "@ai-sdk/provider";
import type { ServerEnv } from "@/lib/env";
import { createOfflineModel, OFFLINE_MODEL_ID } from "./offline-model";

export const modelTiers = ["vendor-2.0-flash-exp", "vendor-1.5-pro", "vendor-1.5-flash"] as const;
export type ModelTier = (typeof modelTiers)[number];
export const defaultModelTier: ModelTier = "vendor-2.0-flash-exp";

export type ChatModel = {
  model: LanguageModelV4;
  /** The id reported in the final `d:` line: the provider's model id, or `offline`. */
  id: string;
};

type ModelEnv = Pick<
  ServerEnv,
  | "modelProvider"
  | "GOOGLE_GENERATIVE_AI_API_KEY"
  | "GOOGLE_GENERATIVE_AI_BASE_URL"
  | "GEMINI_MODEL_FAST"
  | "GEMINI_MODEL_PRO"
  | "GEMINI_MODEL_BALANCED"
>;

/** The configured Gemini id behind a tier name. */
export function geminiModelId(tier: ModelTier, env: ModelEnv): string {
  switch (tier) {
    case "vendor-2.0-flash-exp":
      return env.GEMINI_MODEL_FAST;
    case "vendor-1.5-pro":
      return env.GEMINI_MODEL_PRO;
    case "vendor-1.5-flash":
      return env.GEMINI_MODEL_BALANCED;
  }
}

export function selectChatModel(tier: ModelTier, env: ModelEnv): ChatModel {
  if (env.modelProvider === "offline") {
    return { model: createOfflineModel(), id: OFFLINE_MODEL_ID };
  }
  const google = createGoogle({
    apiKey: env.GOOGLE_GENERATIVE_AI_API_KEY,
    ...(env.GOOGLE_GENERATIVE_AI_BASE_URL ? { baseURL: env.GOOGLE_GENERATIVE_AI_BASE_URL } : {}),
  });
  const id = geminiModelId(tier, env);
  return { model: google(id), id };
}
