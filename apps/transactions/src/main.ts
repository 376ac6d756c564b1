// The transactions service alone (distributed mode): `npm run start:service -- transactions`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('transactions');
