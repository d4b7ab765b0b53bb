/**
 * How fast an upload's bytes are verified: the resumable SHA-256 the verify task uses (hash-wasm,
 * whose state is saved between invocations: functions/core/files/upload-bytes.ts `hashOn`)
 * against Node's `createHash` (OpenSSL), on the same bytes in memory, in the chunks S3 hands a
 * reader (64 KiB). Rounds take turns; medians. From the resumable rate: how long a 5 TiB upload
 * takes to verify, and its Lambda cost at the worker's memory (a vCPU share of memory / 1,769 MB:
 * the machine's one-core rate scaled down, as bench/cost-model.ts scales CPU time).
 *
 *   npx tsx bench/hash-rate.ts            (BENCH_HASH_MIB: bytes per round, default 256)
 */
import { createHash, randomBytes } from 'node:crypto';
import { createSHA256 } from 'hash-wasm';
import { memorySizeOf } from '#lib/function-settings';
import { MB_PER_VCPU, prices } from './cost-model';

const MIB = 1024 * 1024;
const size = Number(process.env.BENCH_HASH_MIB ?? 256) * MIB;
const CHUNK = 64 * 1024;
const ROUNDS = 5;
const bytes = randomBytes(size);

/** MB/s (10^6 bytes a second) of hashing `bytes` in CHUNK-sized updates, each way. */
async function resumable(): Promise<number> {
  const started = performance.now();
  const sha256 = await createSHA256();
  sha256.init();
  for (let offset = 0; offset < size; offset += CHUNK) sha256.update(bytes.subarray(offset, offset + CHUNK));
  // A step's end: the state saved and loaded again (what an invocation boundary costs), then the digest.
  const state = sha256.save();
  const next = await createSHA256();
  next.load(state);
  next.digest('hex');
  return size / 1e6 / ((performance.now() - started) / 1_000);
}

function openssl(): number {
  const started = performance.now();
  const hash = createHash('sha256');
  for (let offset = 0; offset < size; offset += CHUNK) hash.update(bytes.subarray(offset, offset + CHUNK));
  hash.digest('hex');
  return size / 1e6 / ((performance.now() - started) / 1_000);
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const wasm: number[] = [];
const node: number[] = [];
await resumable(); // warm-up
openssl();
for (let round = 0; round < ROUNDS; round++) {
  if (round % 2 === 0) {
    wasm.push(await resumable());
    node.push(openssl());
  } else {
    node.push(openssl());
    wasm.push(await resumable());
  }
}
const memory = memorySizeOf('Worker');
const share = Math.min(1, memory / MB_PER_VCPU);
const lambdaRate = median(wasm) * share;
const fiveTiB = 5 * 1024 ** 4;
const seconds = fiveTiB / 1e6 / lambdaRate;
const gbSeconds = (memory / 1024) * seconds;
console.log(`hashing ${size / MIB} MiB in ${CHUNK / 1024} KiB chunks, ${ROUNDS} rounds (median):`);
console.log(
  `  resumable SHA-256 (hash-wasm): ${median(wasm).toFixed(0)} MB/s; node:crypto createHash: ${median(node).toFixed(0)} MB/s (ratio ${(median(wasm) / median(node)).toFixed(2)})`,
);
console.log(
  `  5 TiB at ${memory} MB (${(share * 100).toFixed(0)}% of a vCPU, ~${lambdaRate.toFixed(0)} MB/s): ${(seconds / 3600).toFixed(1)} h, ` +
    `${gbSeconds.toFixed(0)} GB-s, $${(gbSeconds * prices.lambdaArmPerGbSecond).toFixed(2)} of Lambda (S3 reads not counted)`,
);
