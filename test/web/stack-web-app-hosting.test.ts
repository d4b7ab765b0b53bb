/**
 * The deployed hosting of the web app (lib/stack/web-app.ts), in a stack of its own: private
 * bucket behind CloudFront with OAC, the API under /api/* on the same distribution, app routes
 * by a CloudFront Function (no distribution-wide error pages), strict CSP, runtime config.json.
 * The functions' code is run here as CloudFront would run it on a request.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SPA_ROUTES, STRIP_API_PREFIX, WebApp } from '#lib/stack/web-app';
import { useTempDir } from '#test/support/temp-dir';

/** A CloudFront Function's handler, run on a viewer request for `uri`. */
const run = (code: string, uri: string): string =>
  (new Function(`${code}; return handler;`)() as (e: unknown) => { uri: string })({ request: { uri } }).uri;

describe('the CloudFront Functions', () => {
  it('send app routes to the page and leave files alone', () => {
    expect(run(SPA_ROUTES, '/app/repo/r1/folder/f1')).toBe('/app/index.html');
    expect(run(SPA_ROUTES, '/app/')).toBe('/app/index.html');
    expect(run(SPA_ROUTES, '/app')).toBe('/app/index.html');
    expect(run(SPA_ROUTES, '/app/assets/index-abc.js')).toBe('/app/assets/index-abc.js');
    // A share link's page: its token has dots, yet it is a route, not a file.
    expect(run(SPA_ROUTES, '/app/s/r1abc.d1.secret_-x')).toBe('/app/index.html');
    expect(run(SPA_ROUTES, '/app/s/x/y.js')).toBe('/app/s/x/y.js');
    expect(run(SPA_ROUTES, '/config.json')).toBe('/config.json');
    expect(run(SPA_ROUTES, '/other')).toBe('/other');
  });

  it('take /api off before the HTTP API', () => {
    expect(run(STRIP_API_PREFIX, '/api/document/d1')).toBe('/document/d1');
    expect(run(STRIP_API_PREFIX, '/api/')).toBe('/');
    expect(run(STRIP_API_PREFIX, '/api')).toBe('/');
    expect(run(STRIP_API_PREFIX, '/api2/x')).toBe('/api2/x');
  });
});

describe('the template', () => {
  const build = useTempDir('web-dist-');
  mkdirSync(join(build, 'assets'));
  writeFileSync(join(build, 'index.html'), '<!doctype html>');
  writeFileSync(join(build, 'assets', 'index-abc.js'), '');
  const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'Web');
  new WebApp(stack, 'WebApp', {
    apiEndpoint: 'https://abc.execute-api.eu-west-1.amazonaws.com',
    fileBucketOrigin: 'https://files.s3.eu-west-1.amazonaws.com',
    buildDir: build,
  });
  const template = Template.fromStack(stack);

  it('keeps the bucket private, reached by CloudFront through OAC only', () => {
    template.hasResourceProperties('AWS::S3::Bucket', {
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
    });
    template.resourceCountIs('AWS::CloudFront::OriginAccessControl', 1);
  });

  it('serves the API under /api/* uncached, config.json uncached, and has no distribution-wide error pages', () => {
    const [distribution] = Object.values(template.findResources('AWS::CloudFront::Distribution'));
    const config = distribution!.Properties.DistributionConfig;
    expect(config.CustomErrorResponses).toBeUndefined();
    const behaviors = Object.fromEntries(config.CacheBehaviors.map((b: any) => [b.PathPattern, b]));
    expect(Object.keys(behaviors).sort()).toEqual(['/api/*', '/config.json']);
    expect(behaviors['/api/*'].AllowedMethods).toContain('POST');
    expect(behaviors['/api/*'].CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad'); // CachingDisabled
    expect(behaviors['/config.json'].CachePolicyId).toBe('4135ea2d-6df8-44a3-9df3-4b5a84be39ad');
    expect(config.DefaultCacheBehavior.FunctionAssociations).toHaveLength(1);
  });

  it('sends a strict CSP and security headers', () => {
    template.hasResourceProperties('AWS::CloudFront::ResponseHeadersPolicy', {
      ResponseHeadersPolicyConfig: {
        SecurityHeadersConfig: Match.objectLike({
          ContentSecurityPolicy: {
            ContentSecurityPolicy: Match.stringLikeRegexp("script-src 'self';.*frame-ancestors 'none'"),
            Override: true,
          },
          ContentTypeOptions: { Override: true },
        }),
      },
    });
    const csp = JSON.stringify(template.findResources('AWS::CloudFront::ResponseHeadersPolicy'));
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
  });

  it('deploys hashed assets immutable, the page and config.json not cached', () => {
    const deployments = Object.values(template.findResources('Custom::CDKBucketDeployment')).map((d) => d.Properties);
    const byPrefix = Object.fromEntries(deployments.map((p) => [p.DestinationBucketKeyPrefix ?? '', p.SystemMetadata?.['cache-control']]));
    expect(byPrefix).toEqual({ '': 'no-cache', 'app/assets/': 'public, max-age=31536000, immutable', 'app/': 'no-cache' });
  });
});
