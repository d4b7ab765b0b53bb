/**
 * The credentials of a Lambda function, and nothing else. Lambda hands every function its
 * role's temporary credentials in environment variables, so the SDK's default chain (env,
 * SSO, ini files, process, web identity, ECS, EC2 metadata) is dead weight in a bundle: with
 * the SSO and STS clients it pulls in, ~140 KB of minified code parsed on every cold start.
 *
 * The bundler swaps `@aws-sdk/credential-provider-node` for this module (an esbuild alias in
 * lib/bundling.ts), so the DynamoDB client's default provider becomes `defaultProvider` below.
 * Code run unbundled (npm start, the tests) keeps the SDK's own chain, which tries the
 * environment first too.
 */
export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  expiration?: Date;
}

/** The same variables, read the same way, as the SDK's `fromEnv` (first in its default chain). */
export const defaultProvider = () => async (): Promise<Credentials> => {
  const accessKeyId = process.env.AWS_ACCESS_KEY_ID;
  const secretAccessKey = process.env.AWS_SECRET_ACCESS_KEY;
  if (!accessKeyId || !secretAccessKey) {
    throw new Error('No AWS credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set (Lambda sets them).');
  }
  const sessionToken = process.env.AWS_SESSION_TOKEN;
  // Set by `npm run invoke` (the local session's end), as fromEnv reads it; Lambda sets none.
  const expiry = process.env.AWS_CREDENTIAL_EXPIRATION;
  return { accessKeyId, secretAccessKey, ...(sessionToken ? { sessionToken } : {}), ...(expiry ? { expiration: new Date(expiry) } : {}) };
};
