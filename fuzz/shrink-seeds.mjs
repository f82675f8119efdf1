// Writes a small copy of each seed in DIR (in place, as NAME.small) so long
// fuzzing runs spend their executions on structure, not on megabytes of one
// real page: JSON keeps its shape with every list cut to its first three
// members and every string to 600 characters; pieces joined by 0x1e shrink
// one by one; JSON Lines and other text keep their first 40 lines.
//   node fuzz/shrink-seeds.mjs DIR MAX_BYTES
import fs from 'node:fs';
import path from 'node:path';

const [dir, maxArg] = process.argv.slice(2);
const max = Number(maxArg || 32768);

function shrinkValue(v) {
  if (Array.isArray(v)) return v.slice(0, 3).map(shrinkValue);
  if (v && typeof v === 'object') {
    const out = {};
    for (const [k, x] of Object.entries(v)) out[k] = shrinkValue(x);
    return out;
  }
  if (typeof v === 'string' && v.length > 600) return v.slice(0, 600);
  return v;
}

function shrinkText(text) {
  try {
    return JSON.stringify(shrinkValue(JSON.parse(text)));
  } catch {
    return text.split('\n').slice(0, 40).join('\n');
  }
}

for (const name of fs.readdirSync(dir)) {
  const file = path.join(dir, name);
  if (!fs.statSync(file).isFile() || name.endsWith('.small')) continue;
  const text = fs.readFileSync(file, 'utf8');
  if (text.length <= max) continue;
  let small = text.split('\x1e').map(shrinkText).join('\x1e');
  if (small.length > max) small = small.slice(0, max);
  fs.writeFileSync(file + '.small', small);
  fs.unlinkSync(file);
}
