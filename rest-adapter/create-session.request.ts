import { DomainError } from '../src/errors';
import { highestTier, isTier, Tier } from '../src/sessions/tiers';
import { objectWithFields, optionalString } from './request-validation';

const FIELDS = ['flow_id', 'tier', 'reference_id', 'redirect_url', 'locale', 'metadata', 'tiers', 'reference', 'user_sub'] as const;
const invalid = (message: string) => new DomainError('invalid_request', message);

function tierField(value: unknown, field: string): Tier {
  if (!isTier(value)) throw invalid(`${field} must be one of T0, T1, T2, T3, T4, T5, T6`);
  return value;
}

/** A create-session body read into SessionService's CreateSessionCommand, its fields in the order of the GraphQL CreateSessionInput. */
export type CreateSessionFields = {
  flowId: string;
  tier: Tier;
  referenceId: string | undefined;
  redirectUrl: string | undefined;
  locale: string | undefined;
  userSub: string | undefined;
  metadata: Record<string, unknown> | undefined;
};

/**
 * Accepts both create shapes (docs/api-behaviour.md, "Shapes") and returns the GraphQL CreateSessionInput. The quickstart
 * shape's `tiers` means its highest tier, `reference` means `reference_id`, and `flow_id` may be
 * left out; giving both names of one field with different meanings is a 400.
 */
export function createSessionInput(raw: unknown): CreateSessionFields {
  const body = objectWithFields(raw, FIELDS);
  const quickstart = body.tiers !== undefined || body.reference !== undefined;

  let tier = body.tier === undefined ? undefined : tierField(body.tier, 'tier');
  if (body.tiers !== undefined) {
    if (!Array.isArray(body.tiers) || body.tiers.length === 0) throw invalid('tiers must be a non-empty array of tier labels');
    const fromTiers = highestTier(body.tiers.map((t, i) => tierField(t, `tiers[${i}]`)));
    if (tier !== undefined && tier !== fromTiers) throw invalid(`tier ${tier} contradicts tiers (highest ${fromTiers})`);
    tier = fromTiers;
  }
  if (tier === undefined) throw invalid('tier is required');

  let referenceId = optionalString(body, 'reference_id');
  const reference = optionalString(body, 'reference');
  if (reference !== undefined) {
    if (referenceId !== undefined && referenceId !== reference) throw invalid('reference contradicts reference_id');
    referenceId = reference;
  }

  const flowId = optionalString(body, 'flow_id') ?? (quickstart ? 'default' : undefined);
  if (flowId === undefined) throw invalid('flow_id is required');

  const metadata = body.metadata;
  if (metadata !== undefined && (typeof metadata !== 'object' || metadata === null || Array.isArray(metadata))) {
    throw invalid('metadata must be an object');
  }
  // The check above makes it an object; JSON gives it string keys.
  const fields = metadata as Record<string, unknown> | undefined;

  return {
    flowId,
    tier,
    referenceId,
    userSub: optionalString(body, 'user_sub'),
    redirectUrl: optionalString(body, 'redirect_url'),
    locale: optionalString(body, 'locale'),
    metadata: fields,
  };
}
