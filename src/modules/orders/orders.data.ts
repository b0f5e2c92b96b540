import type { ModelObject } from 'objection';
import { BaseModel } from '../../platform/db/model.js';
import { Delegate } from '../delegates/index.js';
import type { Discarded, InvoiceStatus, OpportunityState } from './orders.rules.js';

/**
 * Orders' tables and their models: `opportunities`, `opportunity_lines`, `registrations`,
 * `invoices`, `invoice_lines`, `payments`, `payment_types` and `stock_items`. The statements are
 * in the orders module's other data files, one per concern: order-intake.data.ts (the intake),
 * order-steps.data.ts (the worker's two steps, release and retry), order-views.data.ts (the one
 * read model of an order that `orders:show`/`orders:list` and GraphQL share) and
 * order-settings.data.ts (payment types, stock items). Every function takes the tenant's
 * transaction first.
 *
 * @uses delegates: a registration's delegates are its `delegates` relation (the delegates module's model)
 */

export class PaymentType extends BaseModel {
  static override tableName = 'payment_types';

  declare id: number;
  /** Unique in any case (an index on lower(name)). */
  declare name: string;
  declare created_on: string;
}

export class StockItem extends BaseModel {
  static override tableName = 'stock_items';

  declare id: number;
  declare name: string;
  /** numeric(14,2) as text ("25.00"). */
  declare price: string;
  declare created_on: string;
}

/** An order placed through REST, and how far the worker got with it. */
export class Opportunity extends BaseModel {
  static override tableName = 'opportunities';

  declare id: number;
  /** received (the initial state of REST orders) -> [awaiting_release -> released] -> registered -> completed; or failed. */
  declare state: OpportunityState;
  declare source: string;
  declare contact_id: number;
  declare company_id: number | null;
  declare external_id: string | null;
  declare region_id: string | null;
  declare currency_id: string | null;
  declare source_type_id: number | null;
  /** The payment as sent; payment_type_id only when the tenant has set the type up (contract rule 2). */
  declare payment_type_name: string | null;
  declare payment_type_id: number | null;
  declare payment_amount: string | null;
  declare payment_currency: string | null;
  declare payment_transaction_code: string | null;
  declare discarded: Discarded[];
  declare created_by_user_id: number | null;
  declare idempotency_key: string | null;
  declare request_hash: string | null;
  declare failure_code: string | null;
  declare failure_reason: string | null;
  declare failed_on: string | null;
  declare retries: number;
  declare released_on: string | null;
  declare completed_on: string | null;
  declare created_on: string;
  declare updated_on: string;

  declare lines?: OpportunityLine[];
  declare registration?: Registration;
  declare invoice?: Invoice;

  static override get relationMappings() {
    return {
      lines: {
        relation: BaseModel.HasManyRelation,
        modelClass: OpportunityLine,
        join: { from: 'opportunities.id', to: 'opportunity_lines.opportunity_id' },
      },
      registration: {
        relation: BaseModel.HasOneRelation,
        modelClass: Registration,
        join: { from: 'opportunities.id', to: 'registrations.opportunity_id' },
      },
      invoice: {
        relation: BaseModel.HasOneRelation,
        modelClass: Invoice,
        join: { from: 'opportunities.id', to: 'invoices.opportunity_id' },
      },
    };
  }
}

/** An event line buys `quantity` places; a stock-item line is a child of an event line. */
export class OpportunityLine extends BaseModel {
  static override tableName = 'opportunity_lines';

  declare id: number;
  declare opportunity_id: number;
  declare position: number;
  declare kind: 'event' | 'stock_item';
  declare event_id: number | null;
  declare stock_item_id: number | null;
  declare parent_line_id: number | null;
  declare contact_id: number | null;
  declare student_ids: number[];
  declare quantity: number;
  declare unit_price: string;

  declare stockItem?: StockItem;

  static override get relationMappings() {
    return {
      stockItem: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: StockItem,
        join: { from: 'opportunity_lines.stock_item_id', to: 'stock_items.id' },
      },
    };
  }
}

/** What the registration step made of an order: its delegates point at it. */
export class Registration extends BaseModel {
  static override tableName = 'registrations';

  declare id: number;
  declare opportunity_id: number;
  declare contact_id: number;
  declare company_id: number | null;
  declare created_on: string;

  declare delegates?: Delegate[];

  static override get relationMappings() {
    return {
      delegates: {
        relation: BaseModel.HasManyRelation,
        modelClass: Delegate,
        join: { from: 'registrations.id', to: 'delegates.registration_id' },
      },
    };
  }
}

export class Invoice extends BaseModel {
  static override tableName = 'invoices';

  declare id: number;
  declare opportunity_id: number;
  declare registration_id: number | null;
  declare contact_id: number;
  declare company_id: number | null;
  declare currency: string | null;
  declare total: string;
  declare amount_paid: string;
  declare status: InvoiceStatus;
  declare created_on: string;

  declare lines?: InvoiceLine[];
  declare payments?: Payment[];

  static override get relationMappings() {
    return {
      lines: {
        relation: BaseModel.HasManyRelation,
        modelClass: InvoiceLine,
        join: { from: 'invoices.id', to: 'invoice_lines.invoice_id' },
      },
      payments: { relation: BaseModel.HasManyRelation, modelClass: Payment, join: { from: 'invoices.id', to: 'payments.invoice_id' } },
    };
  }
}

export class InvoiceLine extends BaseModel {
  static override tableName = 'invoice_lines';

  declare id: number;
  declare invoice_id: number;
  declare position: number;
  declare description: string;
  declare event_id: number | null;
  declare stock_item_id: number | null;
  declare quantity: number;
  declare unit_price: string;
  declare amount: string;
}

export class Payment extends BaseModel {
  static override tableName = 'payments';

  declare id: number;
  declare invoice_id: number;
  declare payment_type_id: number;
  declare amount: string;
  declare currency: string | null;
  declare transaction_code: string | null;
  declare received_on: string;

  declare paymentType?: PaymentType;

  static override get relationMappings() {
    return {
      paymentType: {
        relation: BaseModel.BelongsToOneRelation,
        modelClass: PaymentType,
        join: { from: 'payments.payment_type_id', to: 'payment_types.id' },
      },
    };
  }
}

/** Rows as PostgreSQL returns them: the models' columns, without Objection's methods. */
export type OpportunityRow = ModelObject<Opportunity>;
export type OpportunityLineRow = ModelObject<OpportunityLine>;
export type RegistrationRow = ModelObject<Registration>;
export type InvoiceRow = ModelObject<Invoice>;
export type InvoiceLineRow = ModelObject<InvoiceLine>;
export type PaymentRow = ModelObject<Payment>;
export type StockItemRow = ModelObject<StockItem>;
export type PaymentTypeRow = ModelObject<PaymentType>;
