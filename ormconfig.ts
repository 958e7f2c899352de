import { createDataSource } from './src/db/data-source';

/** For the TypeORM CLI (`npx typeorm migration:show -d dist/ormconfig.js`) against DATABASE_URL. */
export default createDataSource({ url: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' });
