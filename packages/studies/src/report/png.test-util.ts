// A minimal PNG decoder for tests (8-bit RGB/RGBA, non-interlaced, as Chromium writes screenshots).
import { inflateSync } from "node:zlib";

export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  /** RGBA, 4 bytes per pixel, row-major. */
  readonly rgba: Uint8Array;
}

export function decodePng(buf: Buffer): DecodedPng {
  if (buf.readUInt32BE(0) !== 0x89504e47) throw new Error("not a PNG");
  let off = 8;
  let width = 0;
  let height = 0;
  let colorType = 0;
  const idat: Buffer[] = [];
  while (off < buf.length) {
    const len = buf.readUInt32BE(off);
    const type = buf.toString("ascii", off + 4, off + 8);
    const data = buf.subarray(off + 8, off + 8 + len);
    if (type === "IHDR") {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      if (data[8] !== 8 || data[12] !== 0) throw new Error("only 8-bit non-interlaced PNGs");
      colorType = data[9] ?? 0;
      if (colorType !== 2 && colorType !== 6) throw new Error(`unsupported PNG colour type ${colorType}`);
    } else if (type === "IDAT") idat.push(data);
    else if (type === "IEND") break;
    off += 12 + len;
  }
  const bpp = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * bpp;
  const out = new Uint8Array(width * height * 4);
  let prev = new Uint8Array(stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)] ?? 0;
    const line = raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1));
    const cur = new Uint8Array(stride);
    for (let i = 0; i < stride; i++) {
      const a = i >= bpp ? (cur[i - bpp] ?? 0) : 0;
      const b = prev[i] ?? 0;
      const c = i >= bpp ? (prev[i - bpp] ?? 0) : 0;
      const x = line[i] ?? 0;
      let v: number;
      if (filter === 0) v = x;
      else if (filter === 1) v = x + a;
      else if (filter === 2) v = x + b;
      else if (filter === 3) v = x + ((a + b) >> 1);
      else {
        const p = a + b - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - b);
        const pc = Math.abs(p - c);
        v = x + (pa <= pb && pa <= pc ? a : pb <= pc ? b : c);
      }
      cur[i] = v & 0xff;
    }
    for (let px = 0; px < width; px++) {
      const o = (y * width + px) * 4;
      out[o] = cur[px * bpp] ?? 0;
      out[o + 1] = cur[px * bpp + 1] ?? 0;
      out[o + 2] = cur[px * bpp + 2] ?? 0;
      out[o + 3] = bpp === 4 ? (cur[px * bpp + 3] ?? 255) : 255;
    }
    prev = cur;
  }
  return { width, height, rgba: out };
}

/** Pixels in the rectangle whose colour is saturated (max−min channel > 60): chart lines and bars, not text or grid. */
export function countColoured(png: DecodedPng, x0: number, y0: number, x1: number, y1: number): number {
  let n = 0;
  for (let y = Math.max(0, y0); y < Math.min(png.height, y1); y++)
    for (let x = Math.max(0, x0); x < Math.min(png.width, x1); x++) {
      const o = (y * png.width + x) * 4;
      const r = png.rgba[o] ?? 0;
      const g = png.rgba[o + 1] ?? 0;
      const b = png.rgba[o + 2] ?? 0;
      if (Math.max(r, g, b) - Math.min(r, g, b) > 60) n++;
    }
  return n;
}

/** Pixels in the rectangle within `tolerance` per channel of `hex` (`#rrggbb`): one series' lines or bars. */
export function countColour(
  png: DecodedPng,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  hex: string,
  tolerance = 24,
): number {
  const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16));
  let n = 0;
  for (let y = Math.max(0, y0); y < Math.min(png.height, y1); y++)
    for (let x = Math.max(0, x0); x < Math.min(png.width, x1); x++) {
      const o = (y * png.width + x) * 4;
      if (want.every((c, i) => Math.abs((png.rgba[o + i] ?? 0) - c) <= tolerance)) n++;
    }
  return n;
}
