export * from './project-clock';
export * from './timer.service';
export * from './clock.migration';
export * from './sandbox-clock.controller';
export * from './timer.metrics';
