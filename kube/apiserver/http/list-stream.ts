/**
 * A list answer written piece by piece: `{"apiVersion",...,"items":[` then
 * the items in chunks, waiting for the client to drain. A list of 150,000
 * pods is hundreds of megabytes of JSON; one string of it would come near
 * V8's string limit and hold it all in memory at once.
 */
import type { ServerResponse } from 'node:http';
import type { KubeObject } from '../../cluster/types.ts';

/** Items are written in chunks of about this many bytes. */
const CHUNK = 64 * 1024;

/**
 * @example await writeList(res, { apiVersion: 'v1', kind: 'PodList', metadata: { resourceVersion: '7' } }, pods);
 */
export async function writeList(
  res: ServerResponse,
  head: { readonly apiVersion: string; readonly kind: string; readonly metadata: { readonly resourceVersion: string } },
  items: readonly KubeObject[],
): Promise<void> {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  let buf = `${JSON.stringify(head).slice(0, -1)},"items":[`;
  for (const [i, item] of items.entries()) {
    buf += (i === 0 ? '' : ',') + JSON.stringify(item);
    if (buf.length >= CHUNK) {
      const more = res.write(buf);
      buf = '';
      if (!more && !(await drained(res))) return;
    }
  }
  res.end(`${buf}]}`);
}

/** True once the client took what was written; false when it went away first. */
function drained(res: ServerResponse): Promise<boolean> {
  if (res.destroyed) return Promise.resolve(false);
  return new Promise((resolve) => {
    const done = (ok: boolean) => {
      res.off('drain', onDrain);
      res.off('close', onClose);
      resolve(ok);
    };
    const onDrain = () => done(true);
    const onClose = () => done(false);
    res.on('drain', onDrain);
    res.on('close', onClose);
  });
}
