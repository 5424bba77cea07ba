// The framework's floor: read the body, stream the reply as the product's `0:` lines from a
// plain ReadableStream, end with a `d:` line. No model, no SDK, no database.
import { chatStreamHeaders, encodeLine } from "../../../../lib/protocol/lines";
import { replyPieces } from "../reply";

export async function POST(request: Request): Promise<Response> {
  await request.json();
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const text of replyPieces) controller.enqueue(encoder.encode(encodeLine({ type: "text", text })));
      controller.enqueue(encoder.encode(encodeLine({ type: "data", data: { finishReason: "stop", model: "bare" } })));
      controller.close();
    },
  });
  return new Response(stream, { headers: chatStreamHeaders });
}
