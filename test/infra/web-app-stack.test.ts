/**
 * The web app as the deployed stack wires it (lib/stack/documents-stack.ts, web-app.ts, auth.ts):
 * one distribution with the app's bucket (OAC) and the HTTP API under /api/*, no
 * distribution-wide error pages, the CSP headers policy, the file bucket's CORS naming exactly
 * the app's origin, no dependency cycle, and the sign-in: Cognito's managed login with an
 * authorization-code-only client called back at the app's origin, four public routes whose
 * functions may read the secret their cookie key is derived from, and nothing else.
 */
import { describe, expect, it } from 'vitest';
import { SESSION_MAX_AGE_SECONDS } from '#functions/auth/session';
import { routes, signInRoutes } from '#functions/routes';
import { buildApp } from '#lib/stack/app';
import { WEB_SESSION_DAYS } from '#lib/stack/auth';
import { flatTemplate, testContext, testTemplate } from '#test/support/stack';

type Resource = { Type: string; Properties: Record<string, any>; DependsOn?: string | string[] };
const template = testTemplate();
const json = template.toJSON() as { Resources: Record<string, Resource> };
const ofType = (type: string) => Object.entries(json.Resources).filter(([, r]) => r.Type === type);
const only = (type: string) => {
  const found = ofType(type);
  expect(found, type).toHaveLength(1);
  return found[0]!;
};
const [distributionId, distribution] = only('AWS::CloudFront::Distribution');
const config = distribution.Properties.DistributionConfig;
const appOrigin = { 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }]] };

describe('the distribution', () => {
  it('serves the app from its bucket through OAC, the API under /api/* and config.json, with no distribution-wide error pages', () => {
    expect(config.CustomErrorResponses).toBeUndefined();
    const behaviours = Object.fromEntries(config.CacheBehaviors.map((b: any) => [b.PathPattern, b]));
    expect(Object.keys(behaviours).sort()).toEqual(['/api/*', '/config.json']);
    const origins = Object.fromEntries(config.Origins.map((o: any) => [o.Id, o]));
    const appBucket = origins[config.DefaultCacheBehavior.TargetOriginId];
    expect(appBucket.OriginAccessControlId).toBeDefined();
    expect(JSON.stringify(appBucket.DomainName)).toContain('WebAppBucket');
    // The API's own endpoint (its host taken from HttpApi.apiEndpoint), uncached, every method.
    const api = origins[behaviours['/api/*'].TargetOriginId];
    expect(JSON.stringify(api.DomainName)).toMatch(/"Api[0-9A-F]{8}"/);
    expect(api.CustomOriginConfig.OriginProtocolPolicy).toBe('https-only');
    expect(behaviours['/api/*'].AllowedMethods).toEqual(expect.arrayContaining(['GET', 'POST', 'PUT', 'DELETE']));
    expect(behaviours['/api/*'].CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // CachingDisabled
    // The SPA rewrite on the app only; the API's answers (403, 404) stay the API's.
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
    expect(behaviours['/api/*'].FunctionAssociations).toHaveLength(1);
    expect(behaviours['/api/*'].ResponseHeadersPolicyId).toBeUndefined();
  });

  it('sends the strict CSP (no inline or eval script; connect-src the app and the region’s S3) with the app’s files', () => {
    const [policyId, policy] = only('AWS::CloudFront::ResponseHeadersPolicy');
    expect(config.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({ Ref: policyId });
    const csp = JSON.stringify(policy.Properties.ResponseHeadersPolicyConfig.SecurityHeadersConfig.ContentSecurityPolicy);
    expect(csp).toMatch(/script-src 'self';/);
    expect(csp).toMatch(/frame-ancestors 'none'/);
    expect(csp).toMatch(/connect-src 'self' https:\/\/\*\.s3\.",\{"Ref":"AWS::Region"\},"\.amazonaws\.com/);
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('serves a runtime config.json for Cognito sign-in, and no development sign-in anywhere', () => {
    const deployments = ofType('Custom::CDKBucketDeployment');
    expect(JSON.stringify(deployments)).not.toMatch(/dev-sign-in|"development"/);
    expect(JSON.stringify(json)).not.toMatch(/dev-sign-in/i);
    // The tests build no web app: the config only (bin/app.ts adds web/dist when it exists).
    expect(deployments).toHaveLength(1);
    expect(deployments[0]![1].Properties.SystemMetadata).toEqual({ 'cache-control': 'no-cache' });
  });
});

describe('share links', () => {
  it('point at the app’s page: the function that makes them is told the app’s address, no other function is', () => {
    const told = ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Environment?.Variables?.WEB_APP_URL !== undefined);
    expect(told.map(([id]) => id)).toEqual([expect.stringMatching(/^CreateLinkFunction/)]);
    expect(JSON.stringify(told[0]![1].Properties.Environment.Variables.WEB_APP_URL)).toBe(
      JSON.stringify({ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/app']] }),
    );
  });
});

describe('the file bucket', () => {
  it('allows exactly the app’s origin by CORS (the test environment configures no other)', () => {
    const buckets = ofType('AWS::S3::Bucket').filter(([, b]) => b.Properties.CorsConfiguration);
    expect(buckets).toHaveLength(1);
    const rules = buckets[0]![1].Properties.CorsConfiguration.CorsRules;
    expect(rules).toHaveLength(1);
    expect(rules[0].AllowedOrigins).toEqual([appOrigin]);
  });

  it('keeps other configured origins beside it', () => {
    const other = testTemplate({ corsOrigins: ['https://app.example.com'] }).toJSON() as { Resources: Record<string, Resource> };
    const [bucket] = Object.values(other.Resources).filter((r) => r.Type === 'AWS::S3::Bucket' && r.Properties.CorsConfiguration);
    expect(bucket!.Properties.CorsConfiguration.CorsRules[0].AllowedOrigins).toEqual(['https://app.example.com', appOrigin]);
  });
});

it('has no dependency cycle (the bucket names the distribution; the distribution must not name the bucket)', () => {
  const references = (value: unknown, found = new Set<string>()): Set<string> => {
    if (Array.isArray(value)) for (const item of value) references(item, found);
    else if (value && typeof value === 'object') {
      for (const [key, inner] of Object.entries(value)) {
        if (key === 'Ref' && typeof inner === 'string') found.add(inner);
        else if (key === 'Fn::GetAtt') found.add(Array.isArray(inner) ? String(inner[0]) : String(inner).split('.')[0]!);
        else if (key === 'Fn::Sub') for (const m of JSON.stringify(inner).matchAll(/\$\{([A-Za-z0-9]+)[.}]/g)) found.add(m[1]!);
        else references(inner, found);
      }
    }
    return found;
  };
  const edges = new Map(
    Object.entries(json.Resources).map(([id, r]) => [
      id,
      [...references(r.Properties), ...[r.DependsOn ?? []].flat()].filter((to) => to in json.Resources),
    ]),
  );
  const state = new Map<string, 'visiting' | 'done'>();
  const cycle: string[] = [];
  const visit = (id: string, path: string[]): boolean => {
    if (state.get(id) === 'done') return false;
    if (state.get(id) === 'visiting') {
      cycle.push(...path.slice(path.indexOf(id)), id);
      return true;
    }
    state.set(id, 'visiting');
    for (const to of edges.get(id) ?? []) if (visit(to, [...path, id])) return true;
    state.set(id, 'done');
    return false;
  };
  for (const id of edges.keys()) if (visit(id, [])) break;
  expect(cycle).toEqual([]);
});

describe('the sign-in (Cognito managed login through /auth/*)', () => {
  const [webClientId, webClient] = ofType('AWS::Cognito::UserPoolClient').find(([id]) => id.startsWith('AuthWebClient'))!;

  it('has an app client for the authorization-code grant only, called back and signed out at the app’s origin', () => {
    expect(webClient.Properties).toMatchObject({
      AllowedOAuthFlows: ['code'],
      AllowedOAuthFlowsUserPoolClient: true,
      AllowedOAuthScopes: ['openid', 'email'],
      SupportedIdentityProviders: ['COGNITO'],
      EnableTokenRevocation: true,
      CallbackURLs: [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/api/auth/callback']] }],
      LogoutURLs: [{ 'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/app/']] }],
    });
    expect(webClient.Properties.GenerateSecret ?? false).toBe(false);
    // The session cookie lives as long as the refresh token.
    expect(WEB_SESSION_DAYS * 24 * 3600).toBe(SESSION_MAX_AGE_SECONDS);
    expect(webClient.Properties).toMatchObject({
      RefreshTokenValidity: WEB_SESSION_DAYS * 24 * 60,
      TokenValidityUnits: { RefreshToken: 'minutes' },
    });
    const [, domain] = only('AWS::Cognito::UserPoolDomain');
    expect(domain.Properties.ManagedLoginVersion).toBe(2);
    only('AWS::Cognito::ManagedLoginBranding');
    // The authorizer takes the app's access tokens as well as the CLI client's.
    const [, authorizer] = only('AWS::ApiGatewayV2::Authorizer');
    expect(authorizer.Properties.JwtConfiguration.Audience).toContainEqual({ Ref: webClientId });
  });

  it('routes /auth/* without the authorizer to functions that are told the login, the client and where they are reached', () => {
    const apiRoutes = ofType('AWS::ApiGatewayV2::Route').map(([, r]) => r.Properties);
    for (const route of signInRoutes) {
      const found = apiRoutes.find((r) => r.RouteKey === `${route.method} ${route.path}`);
      expect(found, route.name).toBeDefined();
      expect(found!.AuthorizationType ?? 'NONE', route.name).toBe('NONE');
      const [, fn] = ofType('AWS::Lambda::Function').find(([id]) => id.startsWith(`${route.name}Function`))!;
      const variables = fn.Properties.Environment.Variables;
      expect(variables.COGNITO_CLIENT_ID, route.name).toEqual({ Ref: webClientId });
      expect(JSON.stringify(variables.COGNITO_DOMAIN), route.name).toContain('.auth.');
      expect(variables.AUTH_BASE_URL, route.name).toEqual({
        'Fn::Join': ['', ['https://', { 'Fn::GetAtt': [distributionId, 'DomainName'] }, '/api/auth']],
      });
      expect(variables.SESSION_KEY_SECRET_ARN, route.name).toEqual({ Ref: expect.stringMatching(/^PagingTokenSecret/) });
      expect(variables.TABLE_NAME, route.name).toBeUndefined();
    }
  });

  it('lets the sign-in functions read the secret their cookie key is derived from and write their logs, nothing else', () => {
    // No secret of their own ($0.40 a month): the paging secret, whose other readers are the routes that page
    // (the search cluster's credentials are the only other secret).
    expect(ofType('AWS::SecretsManager::Secret').map(([id]) => id)).toEqual([
      expect.stringMatching(/^PagingTokenSecret/),
      expect.stringMatching(/SearchIndexClusterSecret/),
    ]);
    const [keyId] = ofType('AWS::SecretsManager::Secret').find(([id]) => id.startsWith('PagingTokenSecret'))!;
    const roleOf = (name: string) => ofType('AWS::IAM::Role').find(([id]) => id.startsWith(`${name}Role`))![0];
    const signInRoles = signInRoutes.map((route) => roleOf(route.name)).sort();
    const policies = ofType('AWS::IAM::Policy').map(([, p]) => p.Properties);
    const readers = policies
      .filter((p) => JSON.stringify(p.PolicyDocument).includes(`"${keyId}"`))
      .flatMap((p) => p.Roles.map((r: { Ref: string }) => r.Ref))
      .sort();
    const pagingRoles = routes.filter((route) => 'pages' in route && route.pages === true).map((route) => roleOf(route.name));
    expect(readers).toEqual([...signInRoles, ...pagingRoles].sort());
    for (const role of signInRoles) {
      const statements = policies
        .filter((p) => JSON.stringify(p.Roles) === JSON.stringify([{ Ref: role }]))
        .flatMap((p) => p.PolicyDocument.Statement);
      const actions = statements.flatMap((st: any) => [st.Action].flat()).sort();
      expect(actions, role).toEqual([
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'secretsmanager:DescribeSecret',
        'secretsmanager:GetSecretValue',
      ]);
      const secretStatement = statements.find((st: any) => JSON.stringify(st.Action).includes('secretsmanager:'));
      expect(secretStatement.Resource, role).toEqual({ Ref: keyId });
    }
  });
});

describe('where there is no sign-in of the stack’s own', () => {
  it('an external issuer: no app client, no domain, no /auth routes; the sam local template: no distribution either', () => {
    const external = testTemplate({ jwtIssuer: 'https://issuer.example.com', jwtAudience: ['documents'] }).toJSON() as {
      Resources: Record<string, Resource>;
    };
    const types = Object.values(external.Resources).map((r) => r.Type);
    expect(types).not.toContain('AWS::Cognito::UserPoolClient');
    expect(types).not.toContain('AWS::Cognito::UserPoolDomain');
    expect(types).toContain('AWS::CloudFront::Distribution');
    const keys = Object.values(external.Resources)
      .filter((r) => r.Type === 'AWS::ApiGatewayV2::Route')
      .map((r) => r.Properties.RouteKey);
    expect(keys.filter((k: string) => k.includes('/auth/'))).toEqual([]);

    const samLocal = flatTemplate(buildApp({ context: testContext({}, { samLocal: 'true' }) }).stack).toJSON() as {
      Resources: Record<string, Resource>;
    };
    const samTypes = Object.values(samLocal.Resources).map((r) => r.Type);
    expect(samTypes).not.toContain('AWS::CloudFront::Distribution');
    expect(JSON.stringify(samLocal)).not.toContain('/auth/');
  });
});
