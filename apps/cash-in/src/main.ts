// The cash-in service alone (distributed mode): `npm run start:service -- cash-in`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('cash-in');
