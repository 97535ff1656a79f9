/**
 * The static types of the policy language. `any` marks dynamic data (activity.params,
 * eip_712.message, contract_call_args, …): the checker lets it through and the evaluator checks
 * it when it is used. A `namespace` (eth, solana, time …) only groups keywords and is not a value.
 */

export type Type =
  | { readonly t: 'bool' }
  | { readonly t: 'int' }
  | { readonly t: 'string' }
  | { readonly t: 'timestamp' }
  | { readonly t: 'any' }
  /** `max`: the most items the context can hold, which the cost estimate assumes (cost.ts). */
  | { readonly t: 'list'; readonly of: Type; readonly max?: number }
  /** A map from string keys to values of one type, read with `m['key']`. */
  | { readonly t: 'map'; readonly of: Type }
  | { readonly t: 'struct'; readonly name: string; readonly fields: Readonly<Record<string, Type>> }
  | {
      readonly t: 'namespace';
      readonly name: string;
      readonly members: Readonly<Record<string, Type>>;
    };

export const BOOL: Type = { t: 'bool' };
export const INT: Type = { t: 'int' };
export const STRING: Type = { t: 'string' };
export const TIMESTAMP: Type = { t: 'timestamp' };
export const ANY: Type = { t: 'any' };

/** A list type; `max` bounds its length for the write-time cost estimate (see cost.ts). */
export function listOf(of: Type, max?: number): Type {
  return max === undefined ? { t: 'list', of } : { t: 'list', of, max };
}
export function mapOf(of: Type): Type {
  return { t: 'map', of };
}
export function struct(name: string, fields: Record<string, Type>): Type {
  return { t: 'struct', name, fields };
}
export function namespace(name: string, members: Record<string, Type>): Type {
  return { t: 'namespace', name, members };
}

/** Types whose values can be compared with `==` and looked up with `in` / `contains`. */
export function isScalar(type: Type): boolean {
  return type.t === 'bool' || type.t === 'int' || type.t === 'string' || type.t === 'timestamp';
}

export function typeToString(type: Type): string {
  switch (type.t) {
    case 'list':
      return `list<${typeToString(type.of)}>`;
    case 'map':
      return `map<string, ${typeToString(type.of)}>`;
    case 'struct':
      return type.name;
    case 'namespace':
      return `namespace ${type.name}`;
    default:
      return type.t;
  }
}

export function sameType(a: Type, b: Type): boolean {
  if (a.t !== b.t) return false;
  switch (a.t) {
    case 'list':
    case 'map':
      return sameType(a.of, (b as typeof a).of);
    case 'struct':
    case 'namespace':
      return a === b || a.name === (b as typeof a).name;
    default:
      return true;
  }
}
