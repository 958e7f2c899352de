import { ApiKeyEntity } from './api-key.entity';
import { FlowEntity } from './flow.entity';
import { InstanceSettingEntity } from './instance-setting.entity';
import { OutboxEventEntity } from './outbox-event.entity';
import { SessionEntity } from './session.entity';
import { TenantEntity } from './tenant.entity';

export { ApiKeyEntity, FlowEntity, InstanceSettingEntity, OutboxEventEntity, SessionEntity, TenantEntity };

export const ALL_ENTITIES = [TenantEntity, ApiKeyEntity, FlowEntity, SessionEntity, OutboxEventEntity, InstanceSettingEntity];
