// The gateway service alone (distributed mode): `npm run start:service -- gateway`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('gateway');
