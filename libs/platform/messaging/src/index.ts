// First: kafkajs' idle loop is stopped before any client of it is made.
import './kafkajs-idle-loop';
export * from './pg-log.transport';
export * from './kafka-event.server';
export * from './kafka-relay';
export * from './kafka-message';
export * from './kafka-topics';
export * from './handle-once';
export * from './event-transport.factory';
export { EVENTS_CHANNEL } from './events-notify.listener';
export * from './kafka-outages';
export * from './kafka-consumer-lag.metrics';
