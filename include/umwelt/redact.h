// umwelt/redact.h — secrets and local paths never leave the process.
//
// Every error that is logged, printed, stored in the corpus (sync_state) or
// served passes through RedactSecrets: a source or provider may echo its
// credentials back (a 401 body repeating the Authorization header), and
// what is stored travels in every snapshot. Thread-safe.
#pragma once

#include <string>
#include <string_view>

namespace umwelt {

// Registers a secret to be replaced by "***" wherever it appears (tokens a
// source or provider was configured with). Secrets shorter than 4 bytes are
// ignored.
void AddSecret(std::string secret);

// Replaces, in `text`: the registered secrets and the values of the secret
// environment variables (GITHUB_TOKEN, GH_TOKEN, DISCORD_TOKEN,
// WANDB_API_KEY, OPENAI_API_KEY, ANTHROPIC_API_KEY, UMWELT_TOKEN,
// UMWELT_LLM_KEY) by value; and the shapes of tokens whatever their value:
// GitHub (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_), OpenAI/Anthropic
// (sk-…), Discord bot tokens, bearer and basic credentials,
// key=/token=/secret=/password= values, and user:password@ in urls.
std::string RedactSecrets(std::string_view text);

// Replaces each absolute filesystem path in `text` with its last component
// ("/home/me/work/corpus.db: disk I/O error" → "corpus.db: disk I/O error"),
// for what is served to other machines. URLs are left alone.
std::string StripLocalPaths(std::string_view text);

}  // namespace umwelt
