// Drives a Quarry server with the official TypeScript SDK and prints one JSON object with the
// outcome of every scenario. Usage: node drive.mjs <serverURL> <apiKey> <scenarios.json>
// scenarios.json: [{name, file, key?, params?}] — params are SDK partitionParameters fields.
// Each outcome is {elements} on success or {error, statusCode, detail} on failure.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { UnstructuredClient } from "unstructured-client";
import * as errors from "unstructured-client/sdk/models/errors";

const [serverURL, apiKey, scenarioFile] = process.argv.slice(2);
const scenarios = JSON.parse(readFileSync(scenarioFile, "utf8"));

// Retries off: the SDK's default would retry a 5xx for up to 30 minutes.
const noRetries = { strategy: "none" };

// The split hook logs progress with console.*; keep stdout for the JSON result only.
const out = console.log;
console.log = console.info = console.warn = console.error = (...a) => process.stderr.write(a.join(" ") + "\n");

function classify(err) {
  for (const name of ["HTTPValidationError", "ServerError", "SDKError", "ResponseValidationError", "SDKValidationError",
    "ConnectionError", "RequestTimeoutError", "UnexpectedClientError"]) {
    if (errors[name] && err instanceof errors[name]) return name;
  }
  return err?.constructor?.name ?? "unknown";
}

const results = {};
for (const s of scenarios) {
  const client = new UnstructuredClient({
    serverURL,
    security: { apiKeyAuth: s.key ?? apiKey },
    retryConfig: noRetries,
  });
  const content = readFileSync(s.file);
  try {
    const res = await client.general.partition({
      partitionParameters: { files: { content, fileName: basename(s.file) }, ...(s.params ?? {}) },
    }, { retries: noRetries });
    results[s.name] = { elements: res };
  } catch (err) {
    results[s.name] = {
      error: classify(err),
      statusCode: err.statusCode ?? 0,
      detail: err.detail ?? err.data$?.detail ?? null,
      message: String(err.message).slice(0, 500),
    };
  }
}
out(JSON.stringify(results));
