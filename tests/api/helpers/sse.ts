/** Reads a Server-Sent Events stream into events, until it ends or a bound is reached. */
export interface SseEvent {
  id: string | null;
  event: string;
  data: any;
  /** Date.now() when it arrived (with `stamp`). */
  at?: number;
}

export async function readEvents(
  url: string,
  headers: Record<string, string>,
  options: { maxEvents?: number; timeoutMs?: number; stamp?: boolean } = {},
): Promise<{ status: number; contentType: string | null; events: SseEvent[] }> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 30_000);
  const res = await fetch(url, { headers, signal: controller.signal });
  const events: SseEvent[] = [];
  try {
    if (!res.body) return { status: res.status, contentType: res.headers.get('content-type'), events };
    const decoder = new TextDecoder();
    let buffer = '';
    for await (const chunk of res.body) {
      buffer += decoder.decode(chunk as Uint8Array, { stream: true });
      let end: number;
      while ((end = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const event = parseBlock(block);
        if (event && options.stamp) event.at = Date.now();
        if (event) events.push(event);
        if (options.maxEvents !== undefined && events.length >= options.maxEvents) {
          controller.abort();
          return { status: res.status, contentType: res.headers.get('content-type'), events };
        }
      }
    }
  } catch (err) {
    if (!controller.signal.aborted) throw err;
  } finally {
    clearTimeout(timer);
  }
  return { status: res.status, contentType: res.headers.get('content-type'), events };
}

function parseBlock(block: string): SseEvent | null {
  let id: string | null = null;
  let event = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':') || line === '') continue;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'id') id = value;
    else if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (data.length === 0) return null;
  return { id, event, data: JSON.parse(data.join('\n')) };
}
