// The explicit browser entry under bundler resolution and ES2020 only.
import init, { cardHash, initSync, type InitInput } from 'cardgate/web';

export async function start(bytes: ArrayBuffer, href: string): Promise<string> {
  const where: InitInput = { href };
  if (bytes.byteLength > 0) initSync(bytes);
  else await init(where);
  return cardHash('{}');
}
