// Turns `git log --stat` text (the form of many Debian packages' upstream
// changelog.gz: commit, Author, Date, the message indented four spaces, a
// diffstat; or --pretty=fuller's Author, AuthorDate, Commit, CommitDate) into the commit-metadata export that replay-history.mjs reads,
// newest first as the log is, so a project with no export of its own can be
// replayed into git and synced.
//   node tests/tools/gitlog-to-jsonl.mjs CHANGELOG[.gz] OWNER/NAME > commits.jsonl
// Each file's +/- split comes from its diffstat bar, scaled to its count.
// A GNU ChangeLog (gitlog-to-changelog's output, or one kept by hand: a
// "2022-12-11  Name  <mail>" line, then the entries indented by a tab) is
// read too, where the log has no "commit" line: see readGnuChangeLog below.
import crypto from 'node:crypto';
import fs from 'node:fs';
import zlib from 'node:zlib';

const [input, repo] = process.argv.slice(2);
if (!input || !repo) {
  console.error('usage: gitlog-to-jsonl.mjs CHANGELOG[.gz] OWNER/NAME');
  process.exit(2);
}
let raw = fs.readFileSync(input);
if (input.endsWith('.gz')) raw = zlib.gunzipSync(raw);
const lines = raw.toString('utf8').split('\n');

const months = { Jan: 1, Feb: 2, Mar: 3, Apr: 4, May: 5, Jun: 6, Jul: 7, Aug: 8, Sep: 9, Oct: 10, Nov: 11, Dec: 12 };
const pad = n => String(n).padStart(2, '0');
// "Thu Dec 1 21:19:03 2022 +0100" -> "2022-12-01T21:19:03+01:00", and the
// same of --date=iso's "2022-12-01 21:19:03 +0100". A log
// written with --date=short ("2022-01-17") has no time: each day's commits
// get noon, then a second earlier each, newest first as the log lists them,
// so their order in time is the log's.
const perDay = new Map();
function isoDate(text) {
  const day = /^(\d{4}-\d\d-\d\d)$/.exec(text.trim());
  if (day) {
    const n = perDay.get(day[1]) || 0;
    perDay.set(day[1], n + 1);
    const s = 12 * 3600 - n;
    return `${day[1]}T${pad(Math.floor(s / 3600))}:${pad(Math.floor(s / 60) % 60)}:${pad(s % 60)}+00:00`;
  }
  // --date=iso: "2023-01-11 18:52:54 +0200".
  const iso = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d) ([+-]\d\d)(\d\d)$/.exec(text.trim());
  if (iso) return `${iso[1]}T${iso[2]}${iso[3]}:${iso[4]}`;
  const m = /^\w{3} (\w{3}) +(\d+) (\d\d:\d\d:\d\d) (\d{4}) ([+-]\d\d)(\d\d)$/.exec(text.trim());
  if (!m) throw new Error(`a Date: line this tool cannot read: ${text}`);
  return `${m[4]}-${pad(months[m[1]])}-${pad(m[2])}T${m[3]}${m[5]}:${m[6]}`;
}

const out = [];
let c = null;
let pendingStat = null;  // a stat line whose bar wrapped onto the next line
const finish = () => {
  if (!c) return;
  const paragraphs = c.message.join('\n').trim().split(/\n\s*\n/);
  const subject = (paragraphs.shift() || '').replace(/\s*\n\s*/g, ' ');
  const body = paragraphs.join('\n\n');
  const pr = /\(#(\d+)\)\s*$/.exec(subject);
  const added = c.files.reduce((s, f) => s + f.added, 0);
  const deleted = c.files.reduce((s, f) => s + f.deleted, 0);
  out.push(JSON.stringify({
    repo, sha: c.sha, parents: c.parents, author_name: c.author, author_email_domain: c.domain,
    authored_date: c.date, committer_name: c.author, committer_email_domain: c.domain, committed_date: c.date,
    subject, body, pr_number: pr ? Number(pr[1]) : null, is_merge: c.parents.length > 1,
    files_diff_base: 'first_parent', files_changed: c.files.length, lines_added: added, lines_deleted: deleted,
    files: c.files,
  }));
  c = null;
};
// A rename's stat names both paths: "dir/{old.cc => new.cc}" or "a => b".
const renamed = path => {
  const braces = /^(.*)\{(.*) => (.*)\}(.*)$/.exec(path);
  if (braces) return (braces[1] + braces[3] + braces[4]).replace(/\/\//g, '/');
  const whole = /^(.*) => (.*)$/.exec(path);
  return whole ? whole[2] : path;
};
const addStat = (path, count, bar) => {
  path = renamed(path);
  const plus = (bar.match(/\+/g) || []).length;
  const minus = (bar.match(/-/g) || []).length;
  const added = plus + minus ? Math.round(count * plus / (plus + minus)) : 0;
  c.files.push({ path, added, deleted: count - added });
};

// A GNU ChangeLog names no commit and counts no lines. Under one date and
// author gitlog-to-changelog writes each of that day's commits as
// paragraphs; a commit's message ends with its "* file (function): ..."
// lines, so a paragraph that does not begin with "*" (nor with a trailer,
// nor runs on as prose) after a commit's file lines begins the next
// commit. Each commit gets a made-up sha (a hash of what it holds and its
// place) and no files: its paths are in its text.
function readGnuChangeLog() {
  let block = null;
  let commit = null;
  let serial = 0;
  const flush = () => {
    if (!commit) return;
    while (commit.message.length && commit.message.at(-1) === '') commit.message.pop();
    if (commit.message.length) {
      // gitlog-to-changelog drops the blank line after a subject: the subject
      // is the first line, or where the entry begins with a "* file" item (a
      // hand-kept ChangeLog's), that item's first sentence (three lines at most).
      const msg = commit.message;
      let end = 1;
      if (/^\*\s/.test(msg[0])) {
        const stop = l => l === '' || /^[*(]/.test(l) || /^[\w-]+:|^[\w-]+ by:/.test(l);
        while (end < Math.min(msg.length, 3) && !/[.:]$/.test(msg[end - 1]) && !stop(msg[end])) ++end;
      }
      if (end < msg.length && msg[end] !== '') msg.splice(end, 0, '');
      const sha = crypto.createHash('sha1')
        .update(`${serial++}\n${block.date}\n${block.author}\n${msg.join('\n')}`).digest('hex');
      c = { sha, parents: [], author: block.author, domain: block.domain, date: isoDate(block.date), message: msg,
            files: [] };
      finish();
    }
    commit = null;
  };
  let atParagraphStart = true;
  // A paragraph whose first line is long and runs on into the next is a
  // body's explanation after its file list, not a new commit's subject.
  const text = i => (lines[i] || '').replace(/^(\t| {8})/, '');
  const wrappedProse = i => text(i).length > 100 ||
    (text(i).length > 60 && !/[.!?:)\]]$/.test(text(i)) && text(i + 1).trim() !== '' && !/^[*(]/.test(text(i + 1)));
  for (const [i, raw] of lines.entries()) {
    let m;
    if ((m = /^(\d{4}-\d\d-\d\d)\s+(.+?)\s+<[^>@]*@?([^>]*)>/.exec(raw))) {
      flush();
      block = { date: m[1], author: m[2].trim(), domain: m[3], coauthors: true };
      atParagraphStart = true;
      continue;
    }
    if (!block || (raw !== '' && !/^\s/.test(raw))) { if (raw !== '') { flush(); block = null; } continue; }
    const line = text(i);
    // Co-authors listed under the header, before the first entry.
    if (block.coauthors && /^\s+\S.*<[^>]*@[^>]*>\s*$/.test(line) && !commit) continue;
    block.coauthors = false;
    if (line.trim() === '') {
      if (commit) commit.message.push('');
      atParagraphStart = true;
      continue;
    }
    if (atParagraphStart) {
      // More file lines, or a trailer paragraph ("Reported-by: ..."), go on with the commit.
      const continues = /^\*\s/.test(line) || /^([\w-]*-by|Fixes|Closes|Resolves|Link|Bug|References|Complements|Cc)\s*:/i.test(line);
      if (commit && commit.hasFiles && !continues && !wrappedProse(i)) flush();
      if (!commit) commit = { message: [], hasFiles: false };
      atParagraphStart = false;
    }
    if (/^\*\s/.test(line)) commit.hasFiles = true;
    commit.message.push(line);
  }
  flush();
}

const gnu = !lines.some(l => /^commit [0-9a-f]{40}/.test(l)) && lines.some(l => /^\d{4}-\d\d-\d\d\s+\S.*<.*>/.test(l));
if (gnu) readGnuChangeLog();
for (const line of gnu ? [] : lines) {
  let m;
  if ((m = /^commit ([0-9a-f]{40})/.exec(line))) {
    finish();
    c = { sha: m[1], parents: [], author: '', domain: '', date: '', message: [], files: [] };
    continue;
  }
  if (!c) continue;
  if ((m = /^Merge: (.*)$/.exec(line))) { c.parents = m[1].trim().split(/\s+/); continue; }
  // --pretty=fuller pads the name; a name can be empty ("Author:  <a@b>").
  if ((m = /^Author: (.*?)(?: <[^@>]*@?([^>]*)>)?$/.exec(line))) { c.author = m[1].trim(); c.domain = m[2] || ''; continue; }
  if ((m = /^(?:Author)?Date:\s+(.*)$/.exec(line))) { c.date = isoDate(m[1]); continue; }  // "Date:\t2012-05-14" too
  if (/^Commit(?:Date)?: /.test(line)) continue;  // --pretty=fuller's committer: the author's date is the commit's
  if (line.startsWith('    ')) { c.message.push(line.slice(4)); continue; }
  if (line.trim() === '' && c.files.length === 0) { c.message.push(''); continue; }  // a blank line of the message
  if (pendingStat && (m = /^ ([+-]+)\s*$/.exec(line))) {
    addStat(pendingStat.path, pendingStat.count, m[1]);
    pendingStat = null;
    continue;
  }
  if (pendingStat) { addStat(pendingStat.path, pendingStat.count, ''); pendingStat = null; }
  if ((m = /^ (.+?)\s+\|\s+(\d+) ?([+-]*)\s*$/.exec(line))) {
    if (m[3] || Number(m[2]) === 0) addStat(m[1], Number(m[2]), m[3]);
    else pendingStat = { path: m[1], count: Number(m[2]) };
    continue;
  }
  if ((m = /^ (.+?)\s+\|\s+Bin /.exec(line))) { c.files.push({ path: renamed(m[1]), added: 0, deleted: 0 }); continue; }
}
if (pendingStat) addStat(pendingStat.path, pendingStat.count, '');
finish();
process.stdout.write(out.join('\n') + '\n');
console.error(`${out.length} commits`);
