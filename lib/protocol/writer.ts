// Writes the chat stream: lines go out the moment they are written (no batching), and the
// stream always ends with exactly one final `d:` line, however the work behind it ends.
import { encodeLine, type FinishMetadata, type PaymentStatus, type StreamError, type StreamMetadata } from "./lines";

export type LineWriter = {
  text(text: string): void;
  payment(status: PaymentStatus): void;
  data(metadata: StreamMetadata): void;
  error(error: StreamError): void;
  /** True once the reader has gone away; writes after that are dropped. */
  readonly closed: boolean;
};

/**
 * Runs `produce` and streams what it writes. Its return value is the final `d:` line; if it
 * throws, `onFailure` turns the error into an `e:` line and the final `d:` line.
 */
export function createLineStream(
  produce: (writer: LineWriter) => Promise<FinishMetadata>,
  options: {
    onFailure: (error: unknown) => { error: StreamError; finish: FinishMetadata };
    onCancel?: () => void;
  },
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  let closed = false;
  let finished = false;

  const write = (line: string) => {
    if (closed) return;
    try {
      controller.enqueue(encoder.encode(line));
    } catch {
      closed = true;
    }
  };

  const writer: LineWriter = {
    text: (text) => {
      if (text.length > 0 && !finished) write(encodeLine({ type: "text", text }));
    },
    payment: (payment) => {
      if (!finished) write(encodeLine({ type: "payment", payment }));
    },
    data: (data) => {
      // Only the final line may carry a finish reason.
      if (finished) return;
      const { finishReason: _ignored, ...rest } = data;
      write(encodeLine({ type: "data", data: rest }));
    },
    error: (error) => {
      if (!finished) write(encodeLine({ type: "error", error }));
    },
    get closed() {
      return closed;
    },
  };

  const finish = (metadata: FinishMetadata) => {
    if (finished) return;
    finished = true;
    write(encodeLine({ type: "data", data: metadata }));
    if (!closed) {
      closed = true;
      try {
        controller.close();
      } catch {
        // already errored or cancelled
      }
    }
  };

  return new ReadableStream<Uint8Array>({
    start(c) {
      controller = c;
      void produce(writer).then(finish, (error: unknown) => {
        const failure = options.onFailure(error);
        writer.error(failure.error);
        finish(failure.finish);
      });
    },
    cancel() {
      closed = true;
      options.onCancel?.();
    },
  });
}
