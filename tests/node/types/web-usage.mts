// Type-checked against the installed package, browser entry (explicit init).
import init, { evaluate, initSync, type InitInput } from 'cardgate/web';

const input: InitInput = new URL('https://example.invalid/cardgate_bg.wasm');
export async function start(bytes?: Uint8Array): Promise<string> {
  if (bytes) initSync(bytes);
  else await init(input);
  return evaluate('{}', {}, {}).verdict;
}
