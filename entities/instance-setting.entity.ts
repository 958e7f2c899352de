import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Settings shared by every instance, such as the key that derives hosted-page tokens. */
@Entity({ name: 'instance_settings' })
export class InstanceSettingEntity {
  @PrimaryColumn('text')
  key: string;

  @Column('text')
  value: string;
}
