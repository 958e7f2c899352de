import type { WebSocket } from 'ws';
import type { ConnectionBudget } from '../src/sessions/status-subscriber';

/**
 * Writes one `next` message straight to a subscriber's socket (shared-execution.ts). The connection's
 * budget counts the writes the socket has not completed yet (not yet handed to the kernel), as it
 * counts queued events on graphql-ws's own path: a client that stops reading fills its TCP window,
 * writes stop completing, and beyond the limit the connection is closed (1013) instead of buffering
 * without bound. Nothing is written to a closing socket or for a revoked credential.
 */
export function writeNext(socket: Pick<WebSocket, 'readyState' | 'OPEN' | 'send'>, budget: ConnectionBudget, message: string): void {
  if (socket.readyState !== socket.OPEN || budget.revoked) return;
  budget.pending++;
  if (budget.pending > budget.limit) {
    budget.pending--;
    return budget.overflow();
  }
  socket.send(message, () => budget.pending--);
}
