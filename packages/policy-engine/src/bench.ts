/**
 * Decisions per second and p50/p99 latency with 1, 10 and 100 policies per organization.
 * Run: npx tsx packages/policy-engine/src/bench.ts
 *
 * Each organization's policies are a realistic mix: tag-scoped signing allows with a 2-of-n
 * consensus, wallet- and address-scoped allows, and DENY policies about other chains and hash
 * functions (which error with missing data on this request, as they would in production).
 * The request signs with a private key, approved by three users.
 */
import { cpus, loadavg } from 'node:os';
import { evalNode } from './__testing__/reference-evaluator.js';
import type { Checked } from './checked.js';
import type { EvaluationContext } from './context.js';
import { checkPolicy, type PolicyInput } from './policy.js';
import { compilePolicySet, evaluate } from './policy-set.js';

function orgPolicies(n: number, salt: string): PolicyInput[] {
  const policies: PolicyInput[] = [];
  for (let i = 0; i < n; i++) {
    const tag = `tag-${salt}-${i}`;
    switch (i % 5) {
      case 0:
      case 1:
        policies.push({
          policyId: `${salt}-${i}`,
          effect: 'EFFECT_ALLOW',
          condition: `activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && private_key.tags.contains('${tag}')`,
          consensus: `approvers.filter(u, u.tags.contains('t${i % 3}')).count() >= 2`,
        });
        break;
      case 2:
        policies.push({
          policyId: `${salt}-${i}`,
          effect: 'EFFECT_ALLOW',
          condition: `activity.kind == 'SIGN_TRANSACTION' && eth.tx.to == '0x${i.toString(16).padStart(40, '0')}'`,
          consensus: `approvers.any(user, user.id == 'user-${i}')`,
        });
        break;
      case 3:
        policies.push({
          policyId: `${salt}-${i}`,
          effect: 'EFFECT_DENY',
          condition: `activity.type == 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP' && activity.params.encoding != 'PAYLOAD_ENCODING_EIP712'`,
        });
        break;
      default:
        policies.push({
          policyId: `${salt}-${i}`,
          effect: 'EFFECT_DENY',
          condition: `bitcoin.tx.fee > ${50_000 + i}`,
        });
    }
  }
  // the policy that lets this request through
  policies[0] = {
    policyId: `${salt}-0`,
    effect: 'EFFECT_ALLOW',
    condition:
      "activity.resource == 'PRIVATE_KEY' && activity.action == 'SIGN' && private_key.tags.contains('x')",
    consensus: "approvers.filter(u, u.tags.contains('t')).count() >= 2",
  };
  return policies;
}

const context: EvaluationContext = {
  condition: {
    activity: {
      type: 'ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2',
      kind: 'SIGN_RAW_PAYLOAD',
      resource: 'PRIVATE_KEY',
      action: 'SIGN',
      params: {
        hash_function: 'HASH_FUNCTION_KECCAK256',
        encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      },
    },
    private_key: {
      id: 'key-1',
      tags: ['x', 'hot'],
      imported: false,
      exported: false,
      label: 'hot',
    },
  },
  consensus: {
    approvers: [
      { id: 'u1', tags: ['t', 't0'] },
      { id: 'u2', tags: ['t1'] },
      { id: 'u3', tags: ['t', 't2'] },
    ],
    credentials: [],
  },
  now: Date.UTC(2026, 2, 3, 15),
};

function percentile(sorted: Float64Array, p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] as number;
}

interface Figures {
  perSecond: number;
  p50: number;
  p99: number;
}

function measure(run: () => unknown, samples: number): Figures {
  for (let i = 0; i < Math.min(samples, 20_000); i++) run(); // warm up
  const start = performance.now();
  for (let i = 0; i < samples; i++) run();
  const elapsed = (performance.now() - start) / 1000;
  const lat = new Float64Array(samples);
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    run();
    lat[i] = (performance.now() - t0) * 1000;
  }
  lat.sort();
  return { perSecond: samples / elapsed, p50: percentile(lat, 0.5), p99: percentile(lat, 0.99) };
}

function row(label: string, f: Figures): string {
  return `${label.padEnd(44)} ${Math.round(f.perSecond).toLocaleString('en-US').padStart(12)}/s   p50 ${f.p50.toFixed(2).padStart(7)} µs   p99 ${f.p99.toFixed(2).padStart(7)} µs`;
}

/** Baseline: walk the checked trees on every decision (the reference evaluator). */
function treeWalker(policies: PolicyInput[]): () => unknown {
  const checked = policies.map((p) => ({ effect: p.effect, ...checkPolicy(p) }));
  const roots = context.condition as Record<string, unknown>;
  const approvers = context.consensus as Record<string, unknown>;
  return () => {
    let allow = false;
    let deny = false;
    for (const p of checked) {
      const c = p.condition
        ? evalNode(p.condition.root as Checked, { roots, vars: new Map(), nowMs: 0 })
        : { ok: true, value: true };
      if (!c.ok || c.value !== true) continue;
      const s = p.consensus
        ? evalNode(p.consensus.root as Checked, { roots: approvers, vars: new Map(), nowMs: 0 })
        : { ok: true, value: true };
      if (s.ok && s.value === true) {
        if (p.effect === 'EFFECT_DENY') deny = true;
        else allow = true;
      }
    }
    return deny ? 'DENY' : allow ? 'ALLOW' : 'DENY';
  };
}

const cpu = cpus()[0]?.model ?? 'unknown CPU';
console.log(`policy-engine bench — node ${process.version}, ${cpus().length} × ${cpu}`);
console.log(
  `one thread; latency per decision (performance.now around each call); load average ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}\n`,
);

for (const n of [1, 10, 100]) {
  const policies = orgPolicies(n, `org${n}`);
  const t0 = process.hrtime.bigint();
  const set = compilePolicySet(policies);
  const coldMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const decision = evaluate(set, context);
  if (decision.decision !== 'ALLOW') throw new Error(`unexpected decision ${decision.decision}`);
  const samples = n === 100 ? 100_000 : 300_000;
  console.log(
    `${n} ${n === 1 ? 'policy' : 'policies'} (cold compile ${coldMs.toFixed(2)} ms; decision ${decision.decision}, ${decision.errors.length} policies erroring on missing data)`,
  );
  console.log(
    row(
      '  evaluate(compiled set)',
      measure(() => evaluate(set, context), samples),
    ),
  );
  console.log(
    row(
      '  compilePolicySet (cache hit) + evaluate',
      measure(() => evaluate(compilePolicySet(policies), context), samples),
    ),
  );
  console.log(
    row('  baseline: reference tree walk', measure(treeWalker(policies), Math.floor(samples / 5))),
  );
  console.log('');
}
