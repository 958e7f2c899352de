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
});
