// The accounts service alone (distributed mode): `npm run start:service -- accounts`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('accounts');
