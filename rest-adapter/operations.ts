import { parse, validate } from 'graphql';
import type { CompiledQuery } from 'graphql-jit';
import type { RequestContext } from '../src/context';
import { CompiledOperations, isCompiledQuery } from '../schema/compiled-operations';
import { DomainError } from '../src/errors';
import { errorCodeOf } from '../schema/graphql-errors';
import type { DecisionData } from './decision.presenter';

const DECISION_FIELDS = `fragment DecisionFields on SessionDecision { id sessionId decision source reason reviewerId requestedBy fromStatus toStatus policyVersion checks { name status score reason } decidedAt }`;

const FLOW_FIELDS = `fragment FlowFields on Flow { id name isDefault maxTier displayName logoUrl primaryColor locale redirectUrl allowedOrigins digitalIdEnabled createdAt }`;

const RETENTION_FIELDS = `fragment RetentionFields on Retention { tenantId livemode biometricTemplateDays selfieImageDays selfieVideoDays idDocumentYears updatedAt }`;

/** The GraphQL operations behind the /v1 routes that still run one (decisions, webhooks, retention, flows), parsed and validated once at start-up. */
export const OPERATION_SOURCES = {
  decideSession: `mutation DecideSession($id: ID!, $input: DecideSessionInput!) { decideSession(id: $id, input: $input) { decision { ...DecisionFields } } } ${DECISION_FIELDS}`,
  sessionDecisions: `query SessionDecisions($id: ID!) { sessionDecisions: session(id: $id) { decisions { ...DecisionFields } } } ${DECISION_FIELDS}`,
  createWebhookEndpoint: `mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) { createWebhookEndpoint(input: $input) { id url events livemode signingSecret createdAt } }`,
  webhookEndpoints: `query WebhookEndpoints { webhookEndpoints { id url events livemode status disabledReason failingSince createdAt } }`,
  deleteWebhookEndpoint: `mutation DeleteWebhookEndpoint($id: ID!) { deleteWebhookEndpoint(id: $id) }`,
  replayWebhookEvents: `mutation ReplayWebhookEvents($id: ID!, $input: ReplayWebhookEventsInput!) { replayWebhookEvents(id: $id, input: $input) { queued } }`,
  retention: `query Retention($tenantId: ID!) { retention(tenantId: $tenantId) { ...RetentionFields } } ${RETENTION_FIELDS}`,
  updateRetention: `mutation UpdateRetention($tenantId: ID!, $input: RetentionInput!) { updateRetention(tenantId: $tenantId, input: $input) { ...RetentionFields } } ${RETENTION_FIELDS}`,
  flows: `query Flows { flows { ...FlowFields } } ${FLOW_FIELDS}`,
  flow: `query Flow($flowId: ID!) { flow(flowId: $flowId) { ...FlowFields } } ${FLOW_FIELDS}`,
  createFlow: `mutation CreateFlow($input: CreateFlowInput!) { createFlow(input: $input) { ...FlowFields } } ${FLOW_FIELDS}`,
  updateFlow: `mutation UpdateFlow($flowId: ID!, $input: UpdateFlowInput!) { updateFlow(flowId: $flowId, input: $input) { ...FlowFields } } ${FLOW_FIELDS}`,
  extendSessionRetention: `mutation ExtendSessionRetention($sessionId: ID!, $idDocumentYears: Int!, $reason: String!) { extendSessionRetention(sessionId: $sessionId, idDocumentYears: $idDocumentYears, reason: $reason) { id sessionId idDocumentYears retainUntil artifacts createdAt } }`,
} as const;

export type OperationName = keyof typeof OPERATION_SOURCES;

export type WebhookEndpointData = { id: string; url: string; events: string[]; livemode: boolean; status: string; disabledReason: string | null; failingSince: string | null; createdAt: string };
export type CreatedWebhookEndpointData = { id: string; url: string; events: string[]; livemode: boolean; signingSecret: string; createdAt: string };
export type RetentionData = { tenantId: string; livemode: boolean; biometricTemplateDays: number; selfieImageDays: number; selfieVideoDays: number; idDocumentYears: number; updatedAt: string | null };
export type FlowData = {
  id: string;
  name: string;
  isDefault: boolean;
  maxTier: string;
  displayName: string;
  logoUrl: string | null;
  primaryColor: string;
  locale: string;
  redirectUrl: string | null;
  allowedOrigins: string[];
  digitalIdEnabled: boolean;
  createdAt: string;
};
type RetentionExtensionData = { id: string; sessionId: string; idDocumentYears: number; retainUntil: string; artifacts: number; createdAt: string };

/** What each operation's selection above answers, as the presenters read it: one type per operation, checked here instead of at every call. */
export type OperationResults = {
  decideSession: { decision: DecisionData };
  sessionDecisions: { decisions: DecisionData[] | null } | null;
  createWebhookEndpoint: CreatedWebhookEndpointData;
  webhookEndpoints: WebhookEndpointData[];
  deleteWebhookEndpoint: boolean;
  replayWebhookEvents: { queued: number };
  retention: RetentionData;
  updateRetention: RetentionData;
  extendSessionRetention: RetentionExtensionData;
  flows: FlowData[];
  flow: FlowData;
  createFlow: FlowData;
  updateFlow: FlowData;
};

/**
 * Runs one operation with the request's context; an error becomes the DomainError a route maps.
 * The operations are fixed, so each is parsed, validated and compiled (schema/compiled-operations.ts)
 * once at start-up: a route pays for its resolvers, not for walking the document again on every request.
 */
export class RestOperations {
  private readonly compiled: Record<OperationName, CompiledQuery>;

  constructor(operations: CompiledOperations) {
    this.compiled = Object.fromEntries(
      Object.entries(OPERATION_SOURCES).map(([name, source]) => {
        const doc = parse(source);
        const errors = validate(operations.schema, doc);
        if (errors.length) throw new Error(`REST operation ${name} does not match the schema: ${errors[0].message}`);
        const compiled = operations.get(`rest:${name}`, doc);
        if (!isCompiledQuery(compiled)) throw new Error(`REST operation ${name} does not compile: ${compiled.errors?.[0]?.message}`);
        return [name, compiled];
      }),
    ) as Record<OperationName, CompiledQuery>;
  }

  async run<N extends OperationName>(name: N, variables: Record<string, unknown>, context: RequestContext): Promise<OperationResults[N]> {
    const result = await CompiledOperations.run(this.compiled[name], context, variables);
    if (result.errors?.length) {
      const [first] = result.errors;
      const code = errorCodeOf(first);
      if (code === 'internal_error') throw first.originalError ?? first;
      throw new DomainError(code, first.message);
    }
    // The one untyped step: an execution result is JSON-shaped data; its shape is the operation's
    // selection, validated against the schema at start-up and named by OperationResults.
    return result.data?.[name] as OperationResults[N];
  }
}
