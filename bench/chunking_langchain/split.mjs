// Peer for bench/chunking_test.go: reads {texts, chunkSize, chunkOverlap, iterations} as JSON on
// stdin, splits the texts joined by blank lines with LangChain's RecursiveCharacterTextSplitter
// (separators "\n\n", "\n", " ", "") after one warm-up run, and prints {ms, chunks}: the mean
// time of one split of the whole text and the number of chunks it gave.
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { texts, chunkSize, chunkOverlap, iterations } = JSON.parse(input);
const text = texts.join("\n\n");
const splitter = new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap });
let chunks = await splitter.splitText(text); // warm-up (JIT)
const start = process.hrtime.bigint();
for (let i = 0; i < iterations; i++) chunks = await splitter.splitText(text);
const ms = Number(process.hrtime.bigint() - start) / 1e6 / iterations;
process.stdout.write(JSON.stringify({ ms, chunks: chunks.length }) + "\n");
