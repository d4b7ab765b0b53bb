/**
 * What a deployed function gets for `jose` (lib/bundling.ts): only ./sam-local-auth.ts and
 * ./jwt.ts use it, to check tokens under `sam local`, which Lambda never runs (API Gateway's
 * authorizer checks them). ./auth.ts loads that check with a dynamic import, so this module is
 * evaluated only then, and says what to do instead of failing obscurely. The template for
 * `sam local` (`-c samLocal=true`) bundles the real `jose`.
 */
const refusal = new Error(
  'This function was bundled without the sam local token check: run it from the template of `npx cdk synth -c samLocal=true`.',
);
if (refusal) throw refusal;

const unavailable = (): never => {
  throw refusal;
};
export const createLocalJWKSet = unavailable;
export const createRemoteJWKSet = unavailable;
export const decodeProtectedHeader = unavailable;
export const jwtVerify = unavailable;
export const errors = {};
