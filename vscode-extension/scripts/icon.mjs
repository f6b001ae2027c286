// Draws images/icon.png (128×128): three workflow steps joined by edges, on the Lobster red.
// Run once with `node scripts/icon.mjs`; the PNG is committed. Uses only node:zlib (no image library).
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

const SIZE = 128;
const RED = [200, 52, 40, 255];
const WHITE = [255, 244, 236, 255];
const CLEAR = [0, 0, 0, 0];

const inRoundedSquare = (x, y, inset, radius) => {
  const lo = inset + radius;
  const hi = SIZE - 1 - inset - radius;
  const dx = Math.max(lo - x, 0, x - hi);
  const dy = Math.max(lo - y, 0, y - hi);
  return x >= inset && y >= inset && x <= SIZE - 1 - inset && y <= SIZE - 1 - inset && dx * dx + dy * dy <= radius * radius;
};
const nodes = [[40, 36], [88, 64], [40, 92]];
const onNode = (x, y) => nodes.some(([cx, cy]) => (x - cx) ** 2 + (y - cy) ** 2 <= 13 * 13);
const onEdge = (x, y) =>
  nodes.slice(1).some(([bx, by], i) => {
    const [ax, ay] = nodes[i];
    const t = Math.max(0, Math.min(1, ((x - ax) * (bx - ax) + (y - ay) * (by - ay)) / ((bx - ax) ** 2 + (by - ay) ** 2)));
    return (x - ax - t * (bx - ax)) ** 2 + (y - ay - t * (by - ay)) ** 2 <= 4 * 4;
  });

const pixel = (x, y) => (!inRoundedSquare(x, y, 4, 22) ? CLEAR : onNode(x, y) || onEdge(x, y) ? WHITE : RED);

const rows = [];
for (let y = 0; y < SIZE; y++) rows.push(Buffer.from([0, ...Array.from({ length: SIZE }, (_, x) => pixel(x, y)).flat()]));

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
const crc32 = (buf) => {
  let c = 0xffffffff;
  for (const byte of buf) c = crcTable[(c ^ byte) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
};
const chunk = (type, data) => {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const tail = Buffer.alloc(4);
  tail.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, tail]);
};
const header = Buffer.alloc(13);
header.writeUInt32BE(SIZE, 0);
header.writeUInt32BE(SIZE, 4);
header.set([8, 6, 0, 0, 0], 8); // 8-bit RGBA
writeFileSync(
  new URL('../images/icon.png', import.meta.url),
  Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', header), chunk('IDAT', deflateSync(Buffer.concat(rows))), chunk('IEND', Buffer.alloc(0))]),
);
