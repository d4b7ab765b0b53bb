/**
 * What the service hashes on purpose, and how fast (no service needed):
 * - an upload's bytes, verified by the resumable SHA-256 the verify task uses (hash-wasm, whose
 *   state is saved between invocations: functions/core/files/upload-bytes.ts `hashOn`) against
 *   Node's `createHash` (OpenSSL) on the same bytes, in the chunks S3 hands a reader (64 KiB);
 *   from the resumable rate, how long a 5 TiB upload takes to verify at the worker's memory, and
 *   its Lambda cost;
 * - a share link's password check: scrypt with the parameters links keep
 *   (functions/core/passwords.ts), one check at a time.
 * Rounds take turns; medians.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createSHA256 } from 'hash-wasm';
import { hashPassword, passwordMatches, SCRYPT_PARAMETERS } from '#core/passwords';
import { memorySizeOf } from '#lib/function-settings';
import { MB_PER_VCPU, prices } from '../cost-model';
import type { Scenario } from '../scenario';

const MIB = 1024 * 1024;
const CHUNK = 64 * 1024;
const ROUNDS = 5;
const PASSWORD_CHECKS = 15;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * q))]!;

/** MB/s (10^6 bytes a second) of hashing `bytes` with the resumable SHA-256, its state saved and loaded once at the end. */
async function resumable(bytes: Buffer): Promise<number> {
  const started = performance.now();
  const sha256 = await createSHA256();
  sha256.init();
  for (let offset = 0; offset < bytes.length; offset += CHUNK) sha256.update(bytes.subarray(offset, offset + CHUNK));
  const next = await createSHA256();
  next.load(sha256.save()); // an invocation's end: what the task keeps, loaded by the next
  next.digest('hex');
  return bytes.length / 1e6 / ((performance.now() - started) / 1_000);
}

function openssl(bytes: Buffer): number {
  const started = performance.now();
  const hash = createHash('sha256');
  for (let offset = 0; offset < bytes.length; offset += CHUNK) hash.update(bytes.subarray(offset, offset + CHUNK));
  hash.digest('hex');
  return bytes.length / 1e6 / ((performance.now() - started) / 1_000);
}

export const hashing: Scenario = {
  name: 'hashing',
  title: 'Hashing: upload verification and link passwords',
  async run(bench) {
    const mib = Number(process.env.BENCH_HASH_MIB ?? 256);
    const bytes = randomBytes(mib * MIB);
    const wasm: number[] = [];
    const node: number[] = [];
    await resumable(bytes); // warm-up
    openssl(bytes);
    for (let round = 0; round < ROUNDS; round++) {
      if (round % 2 === 0) {
        wasm.push(await resumable(bytes));
        node.push(openssl(bytes));
      } else {
        node.push(openssl(bytes));
        wasm.push(await resumable(bytes));
      }
    }
    const memory = memorySizeOf('Worker');
    const share = Math.min(1, memory / MB_PER_VCPU);
    const lambdaRate = median(wasm) * share;
    const seconds = (5 * 1024 ** 4) / 1e6 / lambdaRate;
    const gbSeconds = (memory / 1024) * seconds;

    const stored = await hashPassword('correct horse battery');
    const checks: number[] = [];
    for (let i = 0; i < PASSWORD_CHECKS; i++) {
      const started = performance.now();
      await passwordMatches(i % 2 ? 'correct horse battery' : 'wrong horse battery', stored);
      checks.push(performance.now() - started);
    }
    bench.log(
      `hashing: resumable ${median(wasm).toFixed(0)} MB/s, OpenSSL ${median(node).toFixed(0)} MB/s; scrypt check p50 ${median(checks).toFixed(0)} ms`,
    );
    return {
      hashing: {
        mib,
        chunkKiB: CHUNK / 1024,
        resumableMBs: median(wasm),
        opensslMBs: median(node),
        ratio: median(wasm) / median(node),
        workerMemoryMb: memory,
        fiveTiB: { hours: seconds / 3600, gbSeconds, dollars: gbSeconds * prices.lambdaArmPerGbSecond },
        scrypt: { ...SCRYPT_PARAMETERS, p50Ms: median(checks), p95Ms: quantile(checks, 0.95), checks: PASSWORD_CHECKS },
      },
    };
  },
};
