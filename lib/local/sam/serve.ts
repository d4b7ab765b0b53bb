/**
 * `npm run start:template`: the API served from the synthesized template, as `sam local start-api`
 * serves it: its routes and integrations (each route key to the function its integration targets,
 * `$default` to its fallback function) and the bundles in `cdk.out`, imported as Lambda would
 * import them. Unlike SAM, the local gateway applies the template's JWT authorizer to the routes it
 * is bound to: with the template's issuer and audience when the template spells them out (an
 * external issuer in cdk.json), else with the local one (the Cognito pool's URL is only known once
 * deployed).
 */
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fallbackRoute, matchPath, type Route } from '#functions/routes';
import { createExternalVerifier, type TokenVerifier } from '../jwt';
import type { LambdaHandler, Resolution } from '../lambda-event';
import type { LocalServiceOptions } from '../service';
import { constructName, type SamTemplate, TemplateError, type TemplateFunction } from './template';

const nameOf = (fn: TemplateFunction) => constructName(fn.logicalId);

export function templateRouting(template: SamTemplate): NonNullable<LocalServiceOptions['routing']> & { summary: string } {
  const routes: Route[] = [];
  let fallbackFunction: TemplateFunction | undefined;
  const issuers = new Set<string>();
  let audience: string[] | undefined;
  for (const route of template.routes) {
    const fn = template.functions.get(route.functionLogicalId)!;
    if (route.routeKey === '$default') {
      fallbackFunction = fn;
      continue;
    }
    const [method, path] = route.routeKey.split(' ') as [Route['method'], string];
    routes.push({ name: nameOf(fn), method, path, handler: fn.logicalId, dynamodb: [], ...(route.authorizer ? {} : { public: true }) });
    if (route.authorizer?.issuer) {
      issuers.add(route.authorizer.issuer);
      audience = route.authorizer.audience;
    }
  }
  if (!fallbackFunction) throw new TemplateError(`${template.file} has no $default route.`);
  if (issuers.size > 1) throw new TemplateError(`${template.file} has several JWT issuers; the local gateway serves one.`);

  const byMethod = new Map<string, Route[]>();
  for (const route of routes) byMethod.set(route.method, [...(byMethod.get(route.method) ?? []), route]);
  const resolve = (method: string, path: string): Resolution => {
    const match = matchPath(byMethod.get(method) ?? [], path);
    if (!match) return { kind: 'fallback', route: fallbackRoute, routeKey: '$default' };
    return {
      kind: 'route',
      route: match.route,
      routeKey: `${match.route.method} ${match.route.path}`,
      pathParameters: match.pathParameters,
    };
  };

  const loaded = new Map<string, Promise<LambdaHandler>>();
  const loadHandler = (handler: string): Promise<LambdaHandler> => {
    const fn = handler === fallbackRoute.handler ? fallbackFunction! : template.functions.get(handler);
    if (!fn) return Promise.reject(new Error(`No function ${handler} in ${template.file}`));
    let loading = loaded.get(fn.logicalId);
    if (!loading) {
      const [file, exportName] = [fn.handler.slice(0, fn.handler.lastIndexOf('.')), fn.handler.slice(fn.handler.lastIndexOf('.') + 1)];
      loading = import(pathToFileURL(join(fn.codeDir, `${file}.mjs`)).href).then((module: Record<string, unknown>) => {
        if (typeof module[exportName] !== 'function') throw new Error(`${fn.logicalId}: ${fn.handler} is not exported by its bundle`);
        return module[exportName] as LambdaHandler;
      });
      loading.catch(() => loaded.delete(fn.logicalId));
      loaded.set(fn.logicalId, loading);
    }
    return loading;
  };

  const [issuer] = issuers;
  const external = issuer && audience?.length ? { issuer, audience: audience[0]! } : undefined;
  return {
    resolve,
    loadHandler,
    ...(external ? { verifier: (): TokenVerifier => createExternalVerifier(external.issuer, external.audience) } : {}),
    summary:
      `${routes.length} routes and $default from ${template.file}; ` +
      (external
        ? `tokens from ${external.issuer} (audience ${external.audience}), as the template's authorizer says`
        : "tokens from the local issuer (the template's issuer is known only once deployed)"),
  };
}
