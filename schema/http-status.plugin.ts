import type { ApolloServerPlugin } from '@apollo/server';
import { HTTP_STATUS, isErrorCode } from '../src/errors';

/**
 * Requests that fail before execution (syntax, limits, validation) carry no data. Some of those
 * errors come from plugins that set no HTTP status, which Apollo then reports as 500; the status
 * should follow the error's code instead, so a client mistake is never a 5xx.
 */
export const httpStatusFromErrorCode: ApolloServerPlugin = {
  async requestDidStart() {
    return {
      async willSendResponse({ response }) {
        if (response.body.kind !== 'single') return;
        const { data, errors } = response.body.singleResult;
        const code = errors?.[0]?.extensions?.code;
        if (data === undefined && isErrorCode(code) && code !== 'internal_error') {
          response.http.status = HTTP_STATUS[code];
        }
      },
    };
  },
};
