/**
 * Where a route's resources go. CloudFormation takes at most 500 resources a stack, and a route
 * costs 7 (its function, role, policy and log group; its integration, permission and route), so
 * the routes live in nested stacks, one per group: the first literal segment of the path
 * (`/document/{id}` → `Document`), `Repositories` for the paths that start with a repository id.
 * A new resource of the API (`/share/…`, `/search`) gets a stack of its own by itself, and a route
 * never moves between stacks when others are added (a move would recreate its API route, which API
 * Gateway refuses while the old one with the same key exists). The parent keeps what routes
 * share: the table, the buckets, the API, its stage and authorizer, the worker, the alarms.
 * test/infra/stack-size.test.ts holds every stack under 450 resources.
 *
 * For `sam local` (./sam-local.ts) everything stays in one template, which is never deployed:
 * SAM then reads every function and route from the one file it is given.
 */
import { NestedStack, type Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';

/** The group of a route's path: its first literal segment in PascalCase, or `Repositories`. */
export function routeGroupOf(path: string): string {
  const first = path.split('/')[1] ?? '';
  if (first === '' || first.startsWith('{')) return 'Repositories';
  return first
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase() + word.slice(1))
    .join('');
}

/** The scope each group's routes are made in: a nested stack per group, or the stack itself when `nested` is false. */
export class RouteGroups {
  private readonly scopes = new Map<string, Construct>();

  constructor(
    private readonly stack: Stack,
    private readonly nested: boolean,
  ) {}

  scopeFor(path: string): Construct {
    const group = routeGroupOf(path);
    let scope = this.scopes.get(group);
    if (!scope) {
      scope = this.nested
        ? new NestedStack(this.stack, `Routes${group}`, {
            description: `The ${group} routes of ${this.stack.stackName} (lib/stack/route-groups.ts)`,
          })
        : this.stack;
      this.scopes.set(group, scope);
    }
    return scope;
  }
}
