/**
 * `npm run --silent token -- <user>`: prints a token for sub=<user>, valid one hour, from
 * the local issuer whose keys live in DATA_DIR (default .data); creates them if needed.
 * The token is alone on the last line of stdout.
 */
import { resolve } from 'node:path';
import { loadLocalIssuer } from '#lib/local/jwt';

const user = process.argv[2]?.trim();
if (!user || process.argv.length > 3) {
  console.error('Usage: npm run --silent token -- <user>\n  prints a bearer token (valid one hour) whose subject is <user>');
  process.exit(2);
}
if (process.env.JWT_ISSUER || process.env.JWT_AUDIENCE) {
  console.error('JWT_ISSUER/JWT_AUDIENCE are set: the service trusts that issuer, so get a token from it. Unset them to use local tokens.');
  process.exit(1);
}

const issuer = await loadLocalIssuer(resolve(process.env.DATA_DIR || '.data'));
process.stdout.write(`${await issuer.issueToken(user)}\n`);
