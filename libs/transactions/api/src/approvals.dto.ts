import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsOptional, IsString, MaxLength, MinLength } from 'class-validator';
import { ListQuery } from '@mm/platform/http';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'expired'] as const;
export const APPROVAL_ACTIONS = ['retry', 'refund', 'markFailed', 'completeRefund'] as const;

export class ApprovalOperator {
  @ApiProperty({ description: "the operator's subject at the identity provider (admin-token for the static token)" })
  subject!: string;
  @ApiProperty() name!: string;
  @ApiProperty({ enum: ['viewer', 'support', 'operator', 'admin'] }) role!: string;
}

/** An operator's money action waiting for, or decided by, a second operator (docs/operators.md, Four eyes). */
export class ApprovalResponse {
  @ApiProperty({ example: 'apr_01h455vb4pex5vsknk084sn02q' }) id!: string;
  @ApiProperty({ enum: ['approval'] }) object!: 'approval';
  @ApiProperty() projectId!: string;
  @ApiProperty() transactionId!: string;
  @ApiProperty({ enum: APPROVAL_ACTIONS }) action!: (typeof APPROVAL_ACTIONS)[number];
  @ApiProperty({
    enum: APPROVAL_STATUSES,
    description: 'expired: pending past its expiresAt (on the project clock); it never acts',
  })
  status!: (typeof APPROVAL_STATUSES)[number];
  @ApiProperty({ type: String, nullable: true, description: "the requester's reason" }) reason!: string | null;
  @ApiPropertyOptional({ description: "a refund's amount, when the requester gave one" }) amount?: string;
  @ApiPropertyOptional({ enum: ['returnDestination', 'sender'] }) to?: string;
  @ApiProperty({ example: '250.00', description: 'what the action is worth in USD, compared with the threshold' })
  value!: string;
  @ApiProperty({ example: '0.00', description: "the project's four-eyes threshold when it was requested" })
  threshold!: string;
  @ApiProperty({ type: ApprovalOperator }) requestedBy!: ApprovalOperator;
  @ApiProperty({ format: 'date-time' }) requestedAt!: string;
  @ApiProperty({ format: 'date-time' }) expiresAt!: string;
  @ApiProperty({ type: ApprovalOperator, nullable: true }) decidedBy!: ApprovalOperator | null;
  @ApiProperty({ type: String, format: 'date-time', nullable: true }) decidedAt!: string | null;
  @ApiProperty({ type: String, nullable: true }) rejectionReason!: string | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description: "once approved: the action's result (as its route answers it: refunding, retried, ...)",
  })
  result!: string | null;
}

export class ListApprovalsQuery extends ListQuery {
  @ApiPropertyOptional({ enum: APPROVAL_STATUSES })
  @IsOptional()
  @IsIn(APPROVAL_STATUSES)
  status?: (typeof APPROVAL_STATUSES)[number];

  @ApiPropertyOptional({ description: "only this project's requests" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  projectId?: string;

  @ApiPropertyOptional({ description: "only this transaction's requests" })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  transactionId?: string;
}

export class ApprovalDecisionRequest {
  @ApiPropertyOptional({ maxLength: 500, description: 'why: kept with a rejection, and in the audit log' })
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(500)
  reason?: string;
}
