// The virtual-accounts context's application layer (ARCHITECTURE: Inside one service): its command path, its reads and one handler per use case.
import { CreateVirtualAccountHandler } from './create-virtual-account.handler';
import { DeleteVirtualAccountHandler } from './delete-virtual-account.handler';
import { FinishDeletionHandler } from './finish-deletion.handler';
import { ProvisionVirtualAccountHandler } from './provision-virtual-account.handler';
import { ReceiveTransferHandler } from './receive-transfer.handler';
import { ReleaseHeldTransferHandler } from './release-held-transfer.handler';
import { SimulateBankHandler } from './simulate-bank.handler';
import { UpdateVirtualAccountHandler } from './update-virtual-account.handler';
import { DestinationResolver } from './virtual-account-destination.resolver';
import { DepositCommands } from './deposit.commands';
import { VirtualAccountCommands } from './virtual-account.commands';
import { VirtualAccountQueries } from './virtual-account.queries';
import { VirtualAccountsEventStore } from './virtual-accounts.event-store';

/** The application layer's providers, for the context's Nest module. */
export const VIRTUAL_ACCOUNT_APPLICATION = [
  VirtualAccountsEventStore,
  VirtualAccountCommands,
  DepositCommands,
  VirtualAccountQueries,
  DestinationResolver,
  CreateVirtualAccountHandler,
  ProvisionVirtualAccountHandler,
  UpdateVirtualAccountHandler,
  SimulateBankHandler,
  DeleteVirtualAccountHandler,
  FinishDeletionHandler,
  ReceiveTransferHandler,
  ReleaseHeldTransferHandler,
];
