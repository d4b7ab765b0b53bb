/**
 * What to do when a file's name is taken in its folder: ask once per clash, unless the person
 * chose "apply to all" for this batch. Replace makes a new version of the existing document;
 * Keep both picks a free name ("report (2).pdf"); Skip leaves the file out.
 */
export type ClashChoice = 'replace' | 'keep-both' | 'skip';

export interface ClashPolicy {
  /** The choice for a clash on `name`, asking `ask` unless a choice applies to all. */
  decide(name: string): Promise<ClashChoice>;
}

export function clashPolicy(ask: (name: string) => Promise<{ choice: ClashChoice; applyToAll: boolean }>): ClashPolicy {
  let forAll: ClashChoice | undefined;
  let asking: Promise<unknown> = Promise.resolve();
  return {
    decide(name) {
      // One question at a time, in order: an answer "for all" settles the ones waiting behind it.
      const answer = asking.then(async () => {
        if (forAll) return forAll;
        const { choice, applyToAll } = await ask(name);
        if (applyToAll) forAll = choice;
        return choice;
      });
      asking = answer.catch(() => undefined);
      return answer;
    },
  };
}

/** `name` with " (n)" before its extension, for the smallest n ≥ 2 not in `taken`. */
export function freeName(name: string, taken: ReadonlySet<string>): string {
  const dot = name.lastIndexOf('.');
  const [stem, extension] = dot > 0 ? [name.slice(0, dot), name.slice(dot)] : [name, ''];
  for (let n = 2; ; n++) {
    const candidate = `${stem} (${n})${extension}`;
    if (!taken.has(candidate.toLowerCase())) return candidate;
  }
}
