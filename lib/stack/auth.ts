/**
 * Who may call the API: an HTTP API JWT authorizer for an external OIDC issuer when the
 * deployment names one, or else a Cognito user pool and app client made here. The authorizer is
 * made here, in the stack of the API, and routes in any nested stack (./route-groups.ts) refer to
 * it by id: bound lazily, it would be made in the first route's stack and the others would
 * reach into a sibling.
 */
import { CfnOutput, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  HttpAuthorizer,
  HttpAuthorizerType,
  type HttpRouteAuthorizerConfig,
  type IHttpApi,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { AccountRecovery, Mfa, UserPool, UserPoolClient } from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { DeploymentConfig } from './config';

export class ApiAuth extends Construct {
  readonly authorizer: IHttpRouteAuthorizer;

  constructor(scope: Construct, id: string, props: { api: IHttpApi; jwt?: DeploymentConfig['jwt']; removalPolicy: RemovalPolicy }) {
    super(scope, id);
    const { issuer, audience } = props.jwt ?? this.userPool(props.removalPolicy);
    const jwt = new HttpAuthorizer(this, 'Jwt', {
      httpApi: props.api,
      type: HttpAuthorizerType.JWT,
      identitySource: ['$request.header.Authorization'],
      jwtIssuer: issuer,
      jwtAudience: [...audience],
    });
    const config: HttpRouteAuthorizerConfig = { authorizerId: jwt.authorizerId, authorizationType: 'JWT' };
    this.authorizer = { bind: () => config };
  }

  /** The Cognito user pool and app client, when no external issuer is configured: its issuer and audience. */
  private userPool(removalPolicy: RemovalPolicy): { issuer: string; audience: readonly string[] } {
    const userPool = new UserPool(this, 'UserPool', {
      // Accounts are made by an administrator (README: deploying); no public sign-up.
      selfSignUpEnabled: false,
      signInAliases: { email: true },
      passwordPolicy: { minLength: 12, requireLowercase: true, requireUppercase: true, requireDigits: true, requireSymbols: true },
      mfa: Mfa.OPTIONAL,
      mfaSecondFactor: { sms: false, otp: true },
      accountRecovery: AccountRecovery.EMAIL_ONLY,
      removalPolicy,
    });
    Validations.of(userPool).acknowledge({
      id: 'AwsSolutions-COG2',
      reason:
        'MFA is offered (TOTP) but not forced: the pool is the default for a first deployment; production deployments bring their own OIDC issuer (jwtIssuer) with its own MFA policy.',
    });
    Validations.of(userPool).acknowledge({
      id: 'AwsSolutions-COG8',
      reason:
        'Threat protection needs the Cognito Plus feature plan (billed per user); this default pool has no self sign-up, so accounts exist only where an administrator made them.',
    });

    const client = new UserPoolClient(this, 'Client', {
      userPool,
      // A public client (CLI, browser): no secret; USER_PASSWORD_AUTH for the README's CLI login.
      generateSecret: false,
      authFlows: { userSrp: true, userPassword: true },
      // No hosted UI / OAuth: without this CDK turns on the implicit and authorization-code
      // flows with a https://example.com callback. Tokens come from InitiateAuth (README).
      disableOAuth: true,
      preventUserExistenceErrors: true,
    });

    const issuer = `https://cognito-idp.${Stack.of(this).region}.amazonaws.com/${userPool.userPoolId}`;
    new CfnOutput(Stack.of(this), 'UserPoolId', { value: userPool.userPoolId });
    new CfnOutput(Stack.of(this), 'UserPoolClientId', { value: client.userPoolClientId });
    // Cognito ID tokens carry the client id in `aud`, access tokens in `client_id`: the
    // authorizer accepts either.
    return { issuer, audience: [client.userPoolClientId] };
  }
}
