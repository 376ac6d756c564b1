// The webhooks service alone (distributed mode): `npm run start:service -- webhooks`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('webhooks');
