/**
 * Who may call the API: an HTTP API JWT authorizer for an external OIDC issuer when the
 * deployment names one, or else a Cognito user pool and app client made here. With the web app
 * (`webOrigin`), the pool also gets a second app client for the app's sign-in: Cognito's managed
 * login on a Cognito domain, the authorization-code grant only (with PKCE, through the routes of
 * functions/auth/), called back and signed out only at the app's own origin. The authorizer is
 * made here, in the stack of the API, and routes in any nested stack (./route-groups.ts) refer to
 * it by id: bound lazily, it would be made in the first route's stack and the others would
 * reach into a sibling.
 */
import { Aws, CfnOutput, Duration, Fn, type RemovalPolicy, Stack, Validations } from 'aws-cdk-lib';
import {
  HttpAuthorizer,
  HttpAuthorizerType,
  type HttpRouteAuthorizerConfig,
  type IHttpApi,
  type IHttpRouteAuthorizer,
} from 'aws-cdk-lib/aws-apigatewayv2';
import {
  AccountRecovery,
  CfnManagedLoginBranding,
  ManagedLoginVersion,
  Mfa,
  OAuthScope,
  UserPool,
  UserPoolClient,
  UserPoolClientIdentityProvider,
} from 'aws-cdk-lib/aws-cognito';
import { Construct } from 'constructs';
import type { DeploymentConfig } from './config';

/** What the sign-in routes (functions/auth/) are told: the managed login's domain and the app's client. */
export interface WebSignIn {
  /** `https://<prefix>.auth.<region>.amazoncognito.com`. */
  readonly domain: string;
  readonly clientId: string;
}

export interface ApiAuthProps {
  readonly api: IHttpApi;
  readonly jwt?: DeploymentConfig['jwt'];
  readonly removalPolicy: RemovalPolicy;
  /** The web app's origin (`https://<distribution domain>`): its sign-in is made with the pool. */
  readonly webOrigin?: string;
  /** The Cognito domain's prefix (unique in the region); unset: `<stack name>-<account>`. */
  readonly signInDomainPrefix?: string;
}

/** The refresh-token lifetime of the app's client: functions/auth/session.ts keeps its cookie as long. */
export const WEB_SESSION_DAYS = 30;

export class ApiAuth extends Construct {
  readonly authorizer: IHttpRouteAuthorizer;
  /** Set when the pool is made here and the web app exists. */
  readonly webSignIn?: WebSignIn;

  constructor(scope: Construct, id: string, props: ApiAuthProps) {
    super(scope, id);
    const made = props.jwt ? undefined : this.userPool(props);
    const { issuer, audience } = props.jwt ?? made!;
    if (made?.webSignIn) this.webSignIn = made.webSignIn;
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

  /** The Cognito user pool and app client(s), when no external issuer is configured: its issuer and audience. */
  private userPool({ removalPolicy, webOrigin, signInDomainPrefix }: ApiAuthProps): {
    issuer: string;
    audience: readonly string[];
    webSignIn?: WebSignIn;
  } {
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
    if (!webOrigin) return { issuer, audience: [client.userPoolClientId] };

    // The web app's client: a public client (no secret; PKCE proves the code's owner), the
    // authorization-code grant only (no implicit grant: tokens never in a URL), and no other
    // callback or sign-out address than the app's own.
    const webClient = new UserPoolClient(this, 'WebClient', {
      userPool,
      generateSecret: false,
      oAuth: {
        flows: { authorizationCodeGrant: true, implicitCodeGrant: false, clientCredentials: false },
        scopes: [OAuthScope.OPENID, OAuthScope.EMAIL],
        callbackUrls: [`${webOrigin}/api/auth/callback`],
        logoutUrls: [`${webOrigin}/app/`],
      },
      supportedIdentityProviders: [UserPoolClientIdentityProvider.COGNITO],
      preventUserExistenceErrors: true,
      enableTokenRevocation: true,
      accessTokenValidity: Duration.hours(1),
      idTokenValidity: Duration.hours(1),
      refreshTokenValidity: Duration.days(WEB_SESSION_DAYS),
    });
    // Managed login (Amazon Cognito developer guide, "User pool managed login") on a Cognito
    // domain, with Cognito's own look (a branding style is what the newer managed login shows).
    const domain = userPool.addDomain('Domain', {
      cognitoDomain: {
        domainPrefix: signInDomainPrefix ?? Fn.join('-', [Stack.of(this).stackName.toLowerCase(), Aws.ACCOUNT_ID]),
      },
      managedLoginVersion: ManagedLoginVersion.NEWER_MANAGED_LOGIN,
    });
    new CfnManagedLoginBranding(this, 'Branding', {
      userPoolId: userPool.userPoolId,
      clientId: webClient.userPoolClientId,
      useCognitoProvidedValues: true,
    });
    new CfnOutput(Stack.of(this), 'SignInDomain', { value: domain.baseUrl(), description: 'Cognito managed login of the web app' });
    // Cognito ID tokens carry the client id in `aud`, access tokens in `client_id`: the
    // authorizer accepts either, of either client.
    return {
      issuer,
      audience: [client.userPoolClientId, webClient.userPoolClientId],
      webSignIn: { domain: domain.baseUrl(), clientId: webClient.userPoolClientId },
    };
  }
}
