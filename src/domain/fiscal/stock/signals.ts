// "A movement was queued": a hint from a request (an adjustment) to this process's stock worker,
// so the chain goes out at once. Other processes find it on their next poll.
import { EventEmitter } from 'node:events';
import type { AppContext, ContextMember } from '../../kernel/context.ts';

class StockSignals {
  private readonly emitter = new EventEmitter().setMaxListeners(0);

  movementQueued(): void {
    this.emitter.emit('queued');
  }

  onMovementQueued(listener: () => void): () => void {
    this.emitter.on('queued', listener);
    return () => this.emitter.off('queued', listener);
  }

  close(): void {
    this.emitter.removeAllListeners();
  }
}

export const STOCK_SIGNALS: ContextMember<StockSignals> = {
  name: 'stock.signals',
  create: () => new StockSignals(),
  close: (signals) => signals.close(),
};

export function stockSignals(ctx: AppContext): StockSignals {
  return ctx.members.get(STOCK_SIGNALS);
}
