// Replays a commit-metadata export (../shared/data/*-history/commits.jsonl:
// subjects, bodies, authors, dates, and per-file +/- line counts, no file
// contents) into a git repository whose first-parent history has the same
// messages, people, dates and diff stats: each file's content is synthetic
// lines, added and removed in the recorded amounts.
//   node tests/tools/replay-history.mjs commits.jsonl OUT_DIR [MAX_COMMITS]
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';

const [input, out, maxArg] = process.argv.slice(2);
const max = Number(maxArg || 1e9);
const commits = fs.readFileSync(input, 'utf8').split('\n').filter(Boolean).map(l => JSON.parse(l));
commits.reverse();  // the export is newest first
const chosen = commits.slice(Math.max(0, commits.length - max));

const files = new Map();  // path -> array of lines
let serial = 0;
// The stream goes to a file as it is made: a long history's is more than
// one string may hold (poppler's 7,313 commits: ~0.7 GB).
fs.mkdirSync(out, { recursive: true });
const streamPath = `${out}.fast-import`;
const stream = fs.openSync(streamPath, 'w');
const parts = { push: text => fs.writeSync(stream, text) };
const seconds = iso => Math.floor(Date.parse(iso) / 1000);
const zone = iso => { const m = /([+-]\d\d):?(\d\d)$/.exec(iso); return m ? m[1] + m[2] : '+0000'; };
const ident = (name, domain, iso) => `${name || 'unknown'} <someone@${domain || 'example.com'}> ${seconds(iso)} ${zone(iso)}`;
chosen.forEach((c, i) => {
  let msg = c.subject + (c.body ? '\n\n' + c.body : '');
  const msgBytes = Buffer.byteLength(msg);
  parts.push(`commit refs/heads/main\nmark :${i + 1}\n`);
  parts.push(`author ${ident(c.author_name, c.author_email_domain, c.authored_date)}\n`);
  parts.push(`committer ${ident(c.committer_name, c.committer_email_domain, c.committed_date)}\n`);
  parts.push(`data ${msgBytes}\n${msg}\n`);
  if (i > 0) parts.push(`from :${i}\n`);
  for (const f of c.files || []) {
    if (!f.path || f.path.includes('\n')) continue;
    const lines = files.get(f.path) || [];
    lines.splice(0, Math.min(lines.length, f.deleted || 0));
    for (let k = 0; k < (f.added || 0) && k < 2000; k++) lines.push(`# ${f.path} ${++serial}`);
    if (lines.length === 0 && (f.added || 0) === 0 && files.has(f.path)) {
      files.delete(f.path);
      parts.push(`D ${f.path}\n`);
      continue;
    }
    files.set(f.path, lines);
    const content = lines.join('\n') + '\n';
    parts.push(`M 100644 inline ${f.path}\ndata ${Buffer.byteLength(content)}\n${content}\n`);
  }
});
fs.closeSync(stream);
execFileSync('git', ['init', '-q', '-b', 'main', out]);
const streamIn = fs.openSync(streamPath, 'r');
execFileSync('git', ['-C', out, 'fast-import', '--quiet'], { stdio: [streamIn, 'inherit', 'inherit'] });
fs.closeSync(streamIn);
fs.unlinkSync(streamPath);
execFileSync('git', ['-C', out, 'checkout', '-q', 'main']);
execFileSync('git', ['-C', out, 'remote', 'add', 'origin', `https://github.com/${chosen[0]?.repo || 'o/r'}.git`]);
console.log(`replayed ${chosen.length} commits into ${out}`);
