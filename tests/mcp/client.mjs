// The official MCP TypeScript SDK driving umwelt: `umwelt mcp` over stdio,
// then `umwelt serve`'s /mcp over Streamable HTTP. Asserts as it goes and
// exits non-zero naming the first failure; prints one line per check.
//
//   node tests/mcp/client.mjs UMWELT_BINARY CORPUS HTTP_BASE TOKEN
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const [binary, corpus, httpBase, token] = process.argv.slice(2);
const ok = (what) => console.log(`ok ${what}`);

async function exercise(client, transportName) {
  const t = (what) => `${transportName}: ${what}`;
  const version = client.getServerVersion();
  assert.equal(version.name, "umwelt");
  ok(t(`initialized with ${version.name} ${version.version}`));

  const { tools } = await client.listTools();
  const names = tools.map((x) => x.name).sort();
  for (const want of ["ask", "context", "linked_from", "search", "search_multi", "show", "status", "summaries"]) {
    assert.ok(names.includes(want), `tool ${want} is listed (got ${names})`);
  }
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, "object", `${tool.name} has an input schema`);
    assert.equal(tool.outputSchema?.type, "object", `${tool.name} has an output schema`);
  }
  ok(t(`${tools.length} tools, each with input and output schemas`));

  // search: structured hits with permalinks; the SDK validates them against
  // the tool's output schema.
  const search = await client.callTool({ name: "search", arguments: { query: "MFU H100", k: 5 } });
  assert.ok(!search.isError, JSON.stringify(search.content));
  assert.ok(search.structuredContent.hits.length > 0, "search finds hits");
  for (const h of search.structuredContent.hits) assert.match(h.url, /^(https?|file):\/\//);
  assert.equal(JSON.parse(search.content[0].text).query, "MFU H100");
  ok(t(`search: ${search.structuredContent.hits.length} hits`));

  // The planted instruction comes back as data inside a hit, never as a field of its own.
  const planted = await client.callTool({ name: "search", arguments: { query: "ignore previous instructions", k: 3 } });
  const injected = planted.structuredContent.hits.find((h) => h.snippet.includes("ignore previous instructions"));
  assert.ok(injected, "the planted comment is found");
  assert.deepEqual(Object.keys(planted.structuredContent).sort(), ["hits", "k", "mode", "notes", "query"].filter(
    (k) => k in planted.structuredContent).sort());
  ok(t("a prompt injection is returned as a hit's snippet (data)"));

  // Bad arguments are tool errors (isError) naming the argument, never a crash;
  // the words are those the CLI and the HTTP API use.
  for (const [args, said] of [[{ query: "x", k: "many" }, /^k must be a whole number from 1 to 1,000$/],
                              [{ k: 5 }, /^query is required$/],
                              [{ query: "x", color: "red" }, /^unknown argument `color`$/],
                              [{ query: 12 }, /^query must be a string$/],
                              [{ query: "x", source: "gihub" }, /^unknown source `gihub`: one of github, /]]) {
    const bad = await client.callTool({ name: "search", arguments: args });
    assert.equal(bad.isError, true, `search ${JSON.stringify(args)} is an error`);
    assert.match(bad.content[0].text, said);
  }
  ok(t("bad search arguments are isError results"));
  await assert.rejects(client.callTool({ name: "nope", arguments: {} }), (e) => e instanceof McpError && e.code === -32602);
  ok(t("an unknown tool is a protocol error"));

  // context: whole threads with permalinks, under the budget.
  const ctx = await client.callTool({ name: "context", arguments: { queries: ["MFU H100"], expand: 2, max_chars: 5000 } });
  assert.ok(!ctx.isError, JSON.stringify(ctx.content));
  assert.ok(ctx.structuredContent.threads >= 1 && ctx.structuredContent.threads <= 2);
  assert.ok(ctx.structuredContent.context.length <= 5000);
  assert.match(ctx.structuredContent.context, /^=== .* \((https?|file):\/\//m);
  const badCtx = await client.callTool({ name: "context", arguments: { queries: [] } });
  assert.equal(badCtx.isError, true);
  ok(t(`context: ${ctx.structuredContent.threads} threads, ${ctx.structuredContent.chars} characters`));

  const multi = await client.callTool({ name: "search_multi", arguments: { queries: ["MFU", "checkpoint restore"], total: 7 } });
  assert.ok(multi.structuredContent.hits.length > 0 && multi.structuredContent.hits.length <= 7);
  ok(t("search_multi merges sub-queries"));

  const url = search.structuredContent.hits[0].url;
  const show = await client.callTool({ name: "show", arguments: { target: url, tail: 2 } });
  assert.ok(!show.isError, JSON.stringify(show.content));
  assert.ok(show.structuredContent.chunks.length >= 1 && show.structuredContent.chunks.length <= 2);
  const missing = await client.callTool({ name: "show", arguments: { target: "acme/tinylm#99999" } });
  assert.equal(missing.isError, true);
  ok(t("show reads a thread; a missing one is an error"));

  const linked = await client.callTool({ name: "linked_from", arguments: { target: show.structuredContent.ref } });
  assert.ok(!linked.isError && Array.isArray(linked.structuredContent.linked_from));
  const status = await client.callTool({ name: "status", arguments: {} });
  assert.ok(status.structuredContent.chunks > 0);
  assert.ok(Array.isArray(status.structuredContent.sources));
  const sums = await client.callTool({ name: "summaries", arguments: {} });
  assert.ok(sums.structuredContent.summaries.length > 0, "a stored summary is listed");
  const latest = await client.callTool({ name: "summaries", arguments: { period: "latest" } });
  assert.match(latest.structuredContent.text, /week of/);
  ok(t("linked_from, status and summaries"));

  // Resources: a thread by template, a summary from the list.
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.deepEqual(resourceTemplates.map((r) => r.uriTemplate).sort(), ["umwelt://summary/{period}", "umwelt://thread/{ref}"]);
  const thread = await client.readResource({ uri: "umwelt://thread/" + encodeURIComponent(show.structuredContent.ref) });
  assert.equal(JSON.parse(thread.contents[0].text).ref, show.structuredContent.ref);
  const { resources } = await client.listResources();
  const summary = await client.readResource({ uri: resources[0].uri });
  assert.match(JSON.parse(summary.contents[0].text).text, /week of/);
  await assert.rejects(client.readResource({ uri: "umwelt://thread/acme%2Ftinylm%2399999" }), (e) => e.code === -32002);
  ok(t("resources: templates, a thread, a summary, a missing one"));

  // Prompts.
  const { prompts } = await client.listPrompts();
  assert.deepEqual(prompts.map((p) => p.name).sort(), ["research", "weekly-update"]);
  const research = await client.getPrompt({ name: "research", arguments: { question: "Why did MFU drop?" } });
  assert.match(research.messages[0].content.text, /Why did MFU drop\?/);
  ok(t("prompts"));

  // ask reports progress per stage.
  const stages = [];
  const ask = await client.callTool({ name: "ask", arguments: { question: "What MFU do we get on H100s?" } }, undefined, {
    onprogress: (p) => stages.push(p.message),
    timeout: 120000,
  });
  assert.ok(!ask.isError, JSON.stringify(ask.content));
  assert.match(ask.structuredContent.markdown, /38\.5%/);
  assert.ok(stages.length >= 3, `progress per stage (got ${stages})`);
  ok(t(`ask: ${stages.length} progress notifications, a cited report`));

  // A cancelled call: the SDK sends notifications/cancelled and the session goes on.
  const ac = new AbortController();
  const cancelled = client.callTool({ name: "ask", arguments: { question: "How did checkpointing evolve?" } }, undefined, {
    signal: ac.signal,
  });
  ac.abort("the test cancels it");
  await assert.rejects(cancelled);
  await client.ping();
  const after = await client.callTool({ name: "search", arguments: { query: "checkpoint" } });
  assert.ok(!after.isError);
  ok(t("a cancelled call; the session goes on"));

  // Concurrent calls each get their own answer.
  const many = await Promise.all(
    ["MFU", "checkpoint", "loader", "tokenizer", "H100"].map((q) => client.callTool({ name: "search", arguments: { query: q, k: 3 } })),
  );
  many.forEach((r, i) => assert.equal(r.structuredContent.query, ["MFU", "checkpoint", "loader", "tokenizer", "H100"][i]));
  ok(t("5 concurrent calls"));
}

const stdio = new Client({ name: "umwelt-test", version: "1.0.0" });
await stdio.connect(new StdioClientTransport({ command: binary, args: ["--corpus", corpus, "mcp", "--extractive"], stderr: "inherit" }));
await exercise(stdio, "stdio");
await stdio.close();

const http = new Client({ name: "umwelt-test", version: "1.0.0" });
await http.connect(
  new StreamableHTTPClientTransport(new URL(httpBase + "/mcp"), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }),
);
await exercise(http, "http");
await http.close();

// Without the token the server refuses before MCP starts.
const stranger = new Client({ name: "stranger", version: "1.0.0" });
await assert.rejects(stranger.connect(new StreamableHTTPClientTransport(new URL(httpBase + "/mcp"))));
ok("http: no token, no session");
