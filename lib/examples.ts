/**
 * The example request each handler module declares (`operation.example`), made concrete for its
 * route: the path filled from the params (percent-encoded), the query, the body. The role matrix,
 * the 503 test and the bench send these, so no table elsewhere re-types a route's request.
 */
import type { Example, Operation, Scene } from '#core/http/operation';
import type { HttpMethod, Route } from '#functions/routes';

export interface ExampleCall {
  method: HttpMethod;
  /** The path, with the query if there is one. */
  path: string;
  body?: unknown;
  /** A raw body and its media type (PUT /document/{id}/content). */
  raw?: { body: string; contentType: string };
}

export function exampleCall(route: Pick<Route, 'name' | 'method' | 'path'>, example: Example, scene: Scene): ExampleCall {
  const request = example.request(scene);
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = request.params?.[name];
    if (value === undefined) throw new Error(`${route.name}: its example gives no \`${name}\``);
    return encodeURIComponent(value);
  });
  const query = new URLSearchParams(request.query).toString();
  return {
    method: route.method,
    path: query ? `${path}?${query}` : path,
    ...(request.body === undefined ? {} : { body: request.body }),
    ...(request.raw === undefined ? {} : { raw: request.raw }),
  };
}

/** The status an example is answered with: a create-or-update's example makes what it names (201). */
export const exampleStatus = (operation: Pick<Operation, 'success'>): number =>
  'created' in operation.success && operation.success.created ? 201 : operation.success.status;

/** The scene's fields an example names (read by running it on a scene that records what is read). */
export function sceneFieldsOf(example: Example): (keyof Scene)[] {
  const used = new Set<keyof Scene>();
  example.request(
    new Proxy({} as Scene, {
      get: (_, field) => {
        used.add(field as keyof Scene);
        return 'x';
      },
    }),
  );
  return [...used];
}
