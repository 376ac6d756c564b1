export * from './project.decider';
