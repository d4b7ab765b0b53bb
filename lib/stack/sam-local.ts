/**
 * The template for `sam local` (`npx cdk synth -c env=<name> -c samLocal=true`). SAM CLI passes
 * a function only the variables its template declares (env.json and the shell can change their
 * values, not add new ones), so this flavour declares, empty, on every function, the variables
 * that exist only locally: the DynamoDB endpoint, the paging key itself, and the issuer the
 * functions check tokens against under SAM, which runs no JWT authorizer
 * (functions/core/sam-local-auth.ts). AWS_SAM_LOCAL is not among them: SAM sets it.
 *
 * Such a template cannot be deployed: its CloudFormation rule fails every create and update.
 * `cdk deploy` synthesizes afresh, without the flag unless given.
 */
import { CfnRule, Fn, type Stack } from 'aws-cdk-lib';
import { Function as LambdaFunction } from 'aws-cdk-lib/aws-lambda';
import { SAM_LOCAL_VARIABLES } from '#lib/local/sam/template';

/** `-c samLocal=true` (the CLI passes context as text). */
export const samLocalRequested = (value: unknown) => value === true || value === 'true';

export function prepareForSamLocal(stack: Stack): void {
  for (const construct of stack.node.findAll()) {
    if (!(construct instanceof LambdaFunction)) continue;
    for (const name of SAM_LOCAL_VARIABLES) construct.addEnvironment(name, '');
  }
  new CfnRule(stack, 'SamLocalOnly', {
    assertions: [
      {
        assert: Fn.conditionEquals('sam-local', 'deployed'),
        assertDescription: 'This template was synthesized for sam local (-c samLocal=true): synthesize without it to deploy.',
      },
    ],
  });
}
