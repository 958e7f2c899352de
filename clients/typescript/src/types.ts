import type { components } from './generated/openapi';

/** Friendly names for the generated schema types (src/generated/openapi.d.ts, from openapi.yaml). */
type Schemas = components['schemas'];
export type Session = Schemas['Session'];
export type CreatedSession = Schemas['CreatedSession'];
export type CreateSessionRequest = Schemas['CreateSessionRequest'];
export type SessionStatus = Schemas['SessionStatus'];
export type SessionList = Schemas['SessionList'];
export type SessionDecision = Schemas['SessionDecision'];
export type DecisionRequest = Schemas['DecisionRequest'];
export type CreateWebhookRequest = Schemas['CreateWebhookRequest'];
export type CreatedWebhookEndpoint = Schemas['CreatedWebhookEndpoint'];
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
export type ReplayRequest = Schemas['ReplayRequest'];
export type WebhookEvent = Schemas['WebhookEvent'];
export type Retention = Schemas['Retention'];
export type RetentionPatch = Schemas['RetentionPatch'];
export type Flow = Schemas['Flow'];
export type FlowPatch = Schemas['FlowPatch'];
export type DsrJob = Schemas['DsrJob'];
export type ErrorBody = Schemas['ErrorBody'];
export type BulkImport = Schemas['BulkImport'];
export type BulkImportRecord = Schemas['BulkImportRecord'];
export type BulkImportResult = Schemas['BulkImportResult'];
