import { ApiError, parseServerMessage, refusalOf } from '@outpost/shared';
import type {
  AgentMessage,
  CommandMessage,
  DesiredDevice,
  ErrorDetail,
  ServerMessage,
  WelcomeMessage,
} from '@outpost/shared';
import type { Logger } from '../logging/logger.js';

/** Receives the desired device whenever the server sends it (OS upgrade, workloads, ...). */
export type SpecConsumer = (device: DesiredDevice) => void | Promise<void>;

/** Carries out one server command; its value becomes the result's `data`, a throw its error. */
export type CommandHandler = (args: unknown, command: CommandMessage) => unknown;

/** What the router needs from the connection a message arrived on. */
export interface RouterConnection {
  /** sends on this connection; false when it is gone */
  reply(message: AgentMessage): boolean;
  welcomed(welcome: WelcomeMessage): void;
}

/**
 * Validates and dispatches server messages. A malformed message is logged and answered with an
 * `error`; a failing consumer or handler is logged (and answered, for commands); nothing throws.
 */
export class ServerMessageRouter {
  private readonly specConsumers = new Set<SpecConsumer>();
  private readonly commandHandlers = new Map<string, CommandHandler>();

  constructor(private readonly logger: Logger) {}

  addSpecConsumer(consumer: SpecConsumer): () => void {
    this.specConsumers.add(consumer);
    return () => this.specConsumers.delete(consumer);
  }

  setCommandHandler(command: string, handler: CommandHandler): () => void {
    this.commandHandlers.set(command, handler);
    return () => this.commandHandlers.delete(command);
  }

  get commandNames(): string[] {
    return [...this.commandHandlers.keys()];
  }

  handle(text: string, connection: RouterConnection): void {
    const parsed = parseServerMessage(text);
    if (!parsed.ok) {
      this.logger.warn({ error: parsed.error, refId: parsed.refId }, 'refused a malformed server message');
      connection.reply(refusalOf(parsed));
      return;
    }
    try {
      this.dispatch(parsed.message, connection);
    } catch (err) {
      this.logger.error({ err, type: parsed.message.type }, 'handling a server message failed');
    }
  }

  private dispatch(message: ServerMessage, connection: RouterConnection): void {
    switch (message.type) {
      case 'welcome':
        connection.welcomed(message);
        return;
      case 'ping':
        connection.reply({ type: 'pong', nonce: message.nonce });
        return;
      case 'spec':
        this.deliverSpec(message.device);
        return;
      case 'command':
        void this.runCommand(message, connection);
        return;
      case 'error':
        this.logger.warn(
          { refId: message.refId, status: message.status, error: message.message },
          'the server refused a message',
        );
        return;
    }
  }

  private deliverSpec(device: DesiredDevice): void {
    for (const consumer of this.specConsumers) {
      Promise.resolve()
        .then(() => consumer(device))
        .catch((err: unknown) => this.logger.error({ err }, 'a spec consumer failed'));
    }
  }

  private async runCommand(command: CommandMessage, connection: RouterConnection): Promise<void> {
    const handler = this.commandHandlers.get(command.command);
    let reply: AgentMessage;
    if (handler === undefined) {
      reply = failed(command.id, {
        status: 'UNIMPLEMENTED',
        message: `this agent has no command "${command.command}"`,
      });
    } else {
      try {
        const data = await handler(command.args, command);
        reply =
          data === undefined
            ? { type: 'result', id: command.id, ok: true }
            : { type: 'result', id: command.id, ok: true, data };
      } catch (err) {
        this.logger.warn({ err, command: command.command, id: command.id }, 'a command failed');
        reply = failed(command.id, errorDetailOf(err));
      }
    }
    if (!connection.reply(reply)) {
      this.logger.warn(
        { command: command.command, id: command.id },
        'the link closed before the command result could be sent',
      );
    }
  }
}

const failed = (id: string, error: ErrorDetail): AgentMessage => ({ type: 'result', id, ok: false, error });

function errorDetailOf(err: unknown): ErrorDetail {
  if (err instanceof ApiError) return { status: err.status, message: err.message };
  return { status: 'INTERNAL', message: err instanceof Error ? err.message : String(err) };
}
