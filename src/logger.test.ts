import { QueryFailedError } from 'typeorm';
import { loggableError } from './logger';

describe('loggableError', () => {
  it('keeps a database error to its SQLSTATE and schema names, without SQL, parameters, detail or message', () => {
    const driverError = Object.assign(new Error('invalid input syntax for type timestamp: "planted-1"'), {
      severity: 'ERROR',
      code: '22007',
      detail: 'Key (reference_id)=(planted-2) already exists.',
      table: 'sessions',
      routine: 'DateTimeParseError',
    });
    const err = new QueryFailedError('INSERT INTO sessions (reference_id, metadata) VALUES ($1, $2)', ['planted-3', '{"name":"planted-4"}'], driverError);
    const logged = JSON.stringify(loggableError(err));
    expect(logged).not.toMatch(/planted|INSERT|reference_id/);
    expect(loggableError(err)).toMatchObject({ type: 'QueryFailedError', message: 'database error 22007', code: '22007', table: 'sessions' });
  });

  it('keeps type, message and stack of any other error', () => {
    const logged = loggableError(new TypeError('boom'));
    expect(logged).toMatchObject({ type: 'TypeError', message: 'boom' });
    expect(String(logged.stack)).toMatch(/logger\.test/);
  });

  it('reads the plain error copies pg-boss reports, a database one by its SQLSTATE only', () => {
    expect(loggableError({ message: 'Connection terminated', queue: 'deliver-webhook' })).toMatchObject({ type: 'object', message: 'Connection terminated' });
    const logged = loggableError({ message: 'duplicate key value (planted-5)', severity: 'ERROR', code: '23505', table: 'job', detail: 'planted-6' });
    expect(logged).toMatchObject({ message: 'database error 23505', code: '23505', table: 'job' });
    expect(JSON.stringify(logged)).not.toMatch(/planted/);
    expect(loggableError(42)).toEqual({ type: 'number', message: 'a non-Error value was thrown' });
  });
});
