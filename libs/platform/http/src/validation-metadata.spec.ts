import { IsInt, IsString, MaxLength, getMetadataStorage, validateSync } from 'class-validator';
import { keepValidationMetadata } from './validation-metadata';

describe('keepValidationMetadata: class-validator answers from kept rules, and sees rules added later', () => {
  beforeAll(() => keepValidationMetadata());

  class Base {
    @IsString()
    name!: unknown;
  }
  class Derived extends Base {
    @IsInt()
    count!: unknown;
  }
  const derived = (fields: Record<string, unknown>) => Object.assign(new Derived(), fields);
  const failed = (object: object) =>
    validateSync(object, { forbidUnknownValues: true }).map(
      (e) => `${e.property}:${Object.keys(e.constraints ?? {}).join(',')}`,
    );

  it('validates own and inherited rules the same on every call', () => {
    for (let i = 0; i < 3; i++) {
      expect(failed(derived({ name: 'a', count: 1 }))).toEqual([]);
      expect(failed(derived({ name: 1, count: 'x' })).sort()).toEqual(['count:isInt', 'name:isString']);
    }
  });

  it('applies a rule added to a parent class after its subclass was validated', () => {
    expect(failed(derived({ name: 'long name', count: 1 }))).toEqual([]);
    MaxLength(4)(Base.prototype, 'name');
    expect(failed(derived({ name: 'long name', count: 1 }))).toEqual(['name:maxLength']);
    expect(failed(derived({ name: 'abc', count: 1 }))).toEqual([]);
  });

  it('is applied once, however many times it is asked', () => {
    const storage = getMetadataStorage();
    const find = storage.getTargetValidationMetadatas;
    keepValidationMetadata();
    expect(storage.getTargetValidationMetadatas).toBe(find);
    const first = storage.getTargetValidationMetadatas(Derived, '', false, false);
    expect(storage.getTargetValidationMetadatas(Derived, '', false, false)).toBe(first);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['count', 'name', 'name']);
  });
});
