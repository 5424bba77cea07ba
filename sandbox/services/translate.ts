/**
 * English to Spanish, French or German, word by word from a small local dictionary. Crude on
 * purpose: it is real behaviour on local data, and its one POST route exercises paid bodies.
 */
import { z } from "zod";
import { latencyTag, ServiceInputError, type ServiceDefinition } from "./definition";

const LANGUAGES = ["es", "fr", "de"] as const;
type Language = (typeof LANGUAGES)[number];

const DICTIONARY: Record<string, Record<Language, string>> = {
  hello: { es: "hola", fr: "bonjour", de: "hallo" },
  goodbye: { es: "adiós", fr: "au revoir", de: "auf wiedersehen" },
  thank: { es: "gracias", fr: "merci", de: "danke" },
  thanks: { es: "gracias", fr: "merci", de: "danke" },
  you: { es: "tú", fr: "tu", de: "du" },
  please: { es: "por favor", fr: "s'il vous plaît", de: "bitte" },
  yes: { es: "sí", fr: "oui", de: "ja" },
  no: { es: "no", fr: "non", de: "nein" },
  good: { es: "bueno", fr: "bon", de: "gut" },
  morning: { es: "mañana", fr: "matin", de: "morgen" },
  night: { es: "noche", fr: "nuit", de: "nacht" },
  day: { es: "día", fr: "jour", de: "tag" },
  friend: { es: "amigo", fr: "ami", de: "freund" },
  water: { es: "agua", fr: "eau", de: "wasser" },
  coffee: { es: "café", fr: "café", de: "kaffee" },
  bread: { es: "pan", fr: "pain", de: "brot" },
  house: { es: "casa", fr: "maison", de: "haus" },
  city: { es: "ciudad", fr: "ville", de: "stadt" },
  weather: { es: "tiempo", fr: "météo", de: "wetter" },
  money: { es: "dinero", fr: "argent", de: "geld" },
  price: { es: "precio", fr: "prix", de: "preis" },
  the: { es: "el", fr: "le", de: "der" },
  a: { es: "un", fr: "un", de: "ein" },
  and: { es: "y", fr: "et", de: "und" },
  is: { es: "es", fr: "est", de: "ist" },
  i: { es: "yo", fr: "je", de: "ich" },
  love: { es: "amo", fr: "aime", de: "liebe" },
  world: { es: "mundo", fr: "monde", de: "welt" },
  where: { es: "dónde", fr: "où", de: "wo" },
  station: { es: "estación", fr: "gare", de: "bahnhof" },
  train: { es: "tren", fr: "train", de: "zug" },
  today: { es: "hoy", fr: "aujourd'hui", de: "heute" },
  tomorrow: { es: "mañana", fr: "demain", de: "morgen" },
  beautiful: { es: "hermoso", fr: "beau", de: "schön" },
  very: { es: "muy", fr: "très", de: "sehr" },
  cat: { es: "gato", fr: "chat", de: "katze" },
  dog: { es: "perro", fr: "chien", de: "hund" },
  book: { es: "libro", fr: "livre", de: "buch" },
};

const bodySchema = z.object({
  text: z.string().min(1).max(2_000),
  to: z.enum(LANGUAGES),
});

export const translate: ServiceDefinition = {
  name: "translate",
  serviceName: "PocketTranslate",
  description: "Translates short English text into Spanish (es), French (fr) or German (de), word by word.",
  method: "POST",
  path: "/translate",
  price: 20_000n, // 0.02 USDC
  latencyMs: 400,
  tags: ["translation", "language", "text", latencyTag(400)],
  discovery: {
    bodyType: "json",
    input: { text: "hello friend", to: "es" },
    inputSchema: {
      properties: {
        text: { type: "string", maxLength: 2000, description: "English text" },
        to: { type: "string", enum: [...LANGUAGES] },
      },
      required: ["text", "to"],
    },
    output: {
      example: { translatedText: "hola amigo", from: "en", to: "es", unknownWords: [] },
      schema: {
        properties: {
          translatedText: { type: "string" },
          from: { type: "string" },
          to: { type: "string" },
          unknownWords: { type: "array", items: { type: "string" } },
        },
        required: ["translatedText", "to"],
      },
    },
  },
  async handle({ body }) {
    const parsed = bodySchema.safeParse(body);
    if (!parsed.success) throw new ServiceInputError(`expected JSON { text, to: ${LANGUAGES.join(" | ")} }`);
    const { text, to } = parsed.data;
    const unknownWords: string[] = [];
    const translatedText = text.replace(/[A-Za-z']+/g, (word) => {
      const entry = DICTIONARY[word.toLowerCase()];
      if (!entry) {
        unknownWords.push(word);
        return word;
      }
      const translated = entry[to];
      return word[0] === word[0]?.toUpperCase() ? translated.charAt(0).toUpperCase() + translated.slice(1) : translated;
    });
    return { translatedText, from: "en", to, unknownWords };
  },
};
