import { ApiKeyEntity } from './api-key.entity';
import { CscaCertificateEntity } from './csca-certificate.entity';
import { FlowEntity } from './flow.entity';
import { InstanceSettingEntity } from './instance-setting.entity';
import { OutboxEventEntity } from './outbox-event.entity';
import { RateLimitOverrideEntity } from './rate-limit-override.entity';
import { SessionEntity } from './session.entity';
import { TenantEntity } from './tenant.entity';
import { AuditLogEntity } from './audit-log.entity';
import { WebhookAttemptEntity } from './webhook-attempt.entity';
import { WebhookDeliveryEntity } from './webhook-delivery.entity';
import { WebhookEndpointEntity } from './webhook-endpoint.entity';
import { SanctionsListCurrentEntity } from './sanctions-list-current.entity';
import { SanctionsListVersionEntity } from './sanctions-list-version.entity';
import { DsrJobEntity } from './dsr-job.entity';
import { UserEntity } from './user.entity';

export { ApiKeyEntity, CscaCertificateEntity, FlowEntity, InstanceSettingEntity, OutboxEventEntity, SessionEntity, TenantEntity };
export { RateLimitOverrideEntity };
export { SanctionsListCurrentEntity, SanctionsListVersionEntity };
export { AuditLogEntity, WebhookAttemptEntity, WebhookDeliveryEntity, WebhookEndpointEntity };
export { DsrJobEntity };
export { UserEntity };
export type { UserState, ServiceVerification } from './user.entity';
export type { WebhookEndpointStatus } from './webhook-endpoint.entity';
export type { WebhookDeliveryStatus } from './webhook-delivery.entity';

export const ALL_ENTITIES = [TenantEntity, ApiKeyEntity, FlowEntity, SessionEntity, OutboxEventEntity, InstanceSettingEntity, CscaCertificateEntity, WebhookEndpointEntity, WebhookDeliveryEntity, WebhookAttemptEntity, AuditLogEntity, RateLimitOverrideEntity, SanctionsListVersionEntity, SanctionsListCurrentEntity, DsrJobEntity, UserEntity];
