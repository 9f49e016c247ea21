// Peer for bench/chunking_test.go: reads {texts, chunkSize, chunkOverlap, iterations} as JSON on
// stdin, splits the texts joined by blank lines with LangChain's RecursiveCharacterTextSplitter
// (separators "\n\n", "\n", " ", "") after one warm-up run, and prints {ms, cpuMs, chunks}: the
// mean wall and CPU (user+system, all threads) time of one split of the whole text and the
// number of chunks it gave.
import { RecursiveCharacterTextSplitter } from "@langchain/textsplitters";

let input = "";
for await (const chunk of process.stdin) input += chunk;
const { texts, chunkSize, chunkOverlap, iterations } = JSON.parse(input);
const text = texts.join("\n\n");
const splitter = new RecursiveCharacterTextSplitter({ chunkSize, chunkOverlap });
let chunks = await splitter.splitText(text); // warm-up (JIT)
const start = process.hrtime.bigint();
const cpu0 = process.cpuUsage();
for (let i = 0; i < iterations; i++) chunks = await splitter.splitText(text);
const cpu = process.cpuUsage(cpu0);
const ms = Number(process.hrtime.bigint() - start) / 1e6 / iterations;
const cpuMs = (cpu.user + cpu.system) / 1000 / iterations;
process.stdout.write(JSON.stringify({ ms, cpuMs, chunks: chunks.length }) + "\n");
