/** A syntax tree without positions, for structural comparison. */
export function strip(e: unknown): unknown {
  if (Array.isArray(e)) return e.map(strip);
  if (typeof e === 'object' && e !== null) {
    return Object.fromEntries(
      Object.entries(e)
        .filter(([k]) => k !== 'pos' && k !== 'opPos')
        .map(([k, v]) => [k, strip(v)]),
    );
  }
  return e;
}
